# The tiers (tests/README.md has the table of every test, its tier and what it
# guarantees). Each is a ctest label, with a time limit for every test in it, so that a
# hung test fails on its own instead of running until CI's kill:
#   unit       in-process, milliseconds to seconds
#   e2e        the CLI and the trainer on tiny configurations: runs, kills, signals,
#              locks, MPI, plugins, predict
#   long       end-to-end tests of process control that take a minute or more, each
#              a longer check of a mechanism a shorter e2e test also covers (Release only)
#   smoke      every shipped experiment and replication at reduced size (Release only)
#   reproduce  full-size reruns compared with the committed results (scripts/reproduce.sh;
#              never part of the default run)
#   fuzz       the libFuzzer targets (sanitizer build, tests/fuzz)
# A Catch2 test case is in a tier by its tag ([e2e], [long], [smoke], [reproduce]); untagged
# cases are unit tests.
# The limits catch a hang, not a slow test: they allow for the sanitizer build (several
# times slower than Release) on a machine running two suites at once — a unit test's
# f64 gradchecks of whole models took over 120 s there.
set(ABLATE_TIMEOUT_unit 600)
set(ABLATE_TIMEOUT_e2e 1200)
set(ABLATE_TIMEOUT_long 1200)
set(ABLATE_TIMEOUT_smoke 1800)
set(ABLATE_TIMEOUT_reproduce 7200)
set(ABLATE_TIMEOUT_fuzz 1200)
# `--warn NoTests`: a ctest case whose name selects no Catch2 test fails instead of
# passing with "No tests ran". CMake's list syntax cuts a test name at a ';', so a name
# holding one used to select nothing and pass: 20 test cases never ran that way.
function(ablate_discover_tiers target)
  catch_discover_tests(${target} TEST_SPEC "~[e2e]~[long]~[smoke]~[reproduce]" EXTRA_ARGS --warn NoTests
    PROPERTIES LABELS unit TIMEOUT ${ABLATE_TIMEOUT_unit})
  foreach(tier e2e long smoke reproduce)
    catch_discover_tests(${target} TEST_SPEC "[${tier}]" EXTRA_ARGS --warn NoTests
      PROPERTIES LABELS ${tier} TIMEOUT ${ABLATE_TIMEOUT_${tier}})
  endforeach()
endfunction()
# A test added with add_test: its tier and time limit.
function(ablate_test_tier tier)
  set_tests_properties(${ARGN} PROPERTIES LABELS ${tier} TIMEOUT ${ABLATE_TIMEOUT_${tier}})
endfunction()
