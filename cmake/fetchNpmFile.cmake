# cmake -P script, run by the build (cmake/reportLibraries.cmake): one file and the
# licence of a pinned npm package, taken from the tarball `npm pack` fetches from npm's
# registry, which must have the pinned SHA-256. The tarball is kept in CACHE_DIR, so a
# second build or clone fetches nothing; one that fails the check is never used.
#   -DPACKAGE= -DVERSION= -DSHA256= -DFILE= -DLICENCE= -DCACHE_DIR= -DSCRIPT_OUT= -DLICENCE_OUT=
cmake_minimum_required(VERSION 3.18)
foreach(v PACKAGE VERSION SHA256 FILE LICENCE CACHE_DIR SCRIPT_OUT LICENCE_OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "fetchNpmFile.cmake: -D${v}= is missing")
  endif()
endforeach()

string(REPLACE "/" "-" tarball_name "${PACKAGE}-${VERSION}.tgz")
string(REGEX REPLACE "^@" "" tarball_name "${tarball_name}")
set(tarball "${CACHE_DIR}/${tarball_name}")

function(sha256_matches path result)
  set(${result} FALSE PARENT_SCOPE)
  if(EXISTS "${path}")
    file(SHA256 "${path}" digest)
    if(digest STREQUAL SHA256)
      set(${result} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

sha256_matches("${tarball}" cached)
if(NOT cached)
  find_program(NPM npm)
  if(NOT NPM)
    message(FATAL_ERROR
      "report.html inlines ${PACKAGE}@${VERSION} from npm's registry, and npm is not installed: "
      "run scripts/install-deps.sh (Debian's npm), then build again")
  endif()
  set(scratch "${CACHE_DIR}/.fetch-${PACKAGE}-${VERSION}")
  string(REPLACE "@" "" scratch "${scratch}")
  file(REMOVE_RECURSE "${scratch}")
  file(MAKE_DIRECTORY "${scratch}")
  execute_process(COMMAND ${NPM} pack "${PACKAGE}@${VERSION}" --pack-destination "${scratch}"
      --loglevel=error --no-fund --no-audit
    RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE npm_error)
  file(GLOB fetched "${scratch}/*.tgz")
  list(LENGTH fetched count)
  if(NOT status EQUAL 0 OR NOT count EQUAL 1)
    file(REMOVE_RECURSE "${scratch}")
    message(FATAL_ERROR "npm pack ${PACKAGE}@${VERSION} failed (is npm's registry reachable?): ${npm_error}")
  endif()
  file(SHA256 "${fetched}" digest)
  if(NOT digest STREQUAL SHA256)
    file(REMOVE_RECURSE "${scratch}")
    message(FATAL_ERROR
      "${PACKAGE}@${VERSION} from npm's registry has SHA-256 ${digest}, not the pinned ${SHA256} "
      "(cmake/reportLibraries.cmake): not used")
  endif()
  file(RENAME "${fetched}" "${tarball}")
  file(REMOVE_RECURSE "${scratch}")
endif()

# Extract into a scratch folder next to the outputs, then rename: a killed build leaves
# no half-written output that a later build would take as done.
get_filename_component(out_dir "${SCRIPT_OUT}" DIRECTORY)
set(unpack "${out_dir}/.unpack-${tarball_name}")
file(REMOVE_RECURSE "${unpack}")
file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${unpack}"
  PATTERNS "package/${FILE}" "package/${LICENCE}")
foreach(pair "${FILE}|${SCRIPT_OUT}" "${LICENCE}|${LICENCE_OUT}")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 member)
  list(GET pair 1 out)
  if(NOT EXISTS "${unpack}/package/${member}")
    message(FATAL_ERROR "${PACKAGE}@${VERSION}'s tarball has no ${member}")
  endif()
  file(RENAME "${unpack}/package/${member}" "${out}")
  file(TOUCH "${out}")  # the tarball's 1985 times would make every build redo it
endforeach()
file(REMOVE_RECURSE "${unpack}")
