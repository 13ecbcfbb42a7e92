# cmake -P script, run by the build (cmake/reportLibraries.cmake): one file and the
# licence of a pinned npm package, taken from its tarball on npm's registry (`npm pack`
# where npm is installed, else a plain download of the same tarball), which must have
# the pinned SHA-256. The tarball is kept in CACHE_DIR, so a
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
  set(scratch "${CACHE_DIR}/.fetch-${tarball_name}")
  file(REMOVE_RECURSE "${scratch}")
  file(MAKE_DIRECTORY "${scratch}")
  find_program(NPM npm)
  if(NPM)
    # npm honours the user's own registry and proxy settings (.npmrc).
    execute_process(COMMAND ${NPM} pack "${PACKAGE}@${VERSION}" --pack-destination "${scratch}"
        --loglevel=error --no-fund --no-audit
      RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE fetch_error)
  else()
    # Without npm (README command (a) needs none), the same tarball from the same
    # registry, at the address npm itself would fetch it from.
    string(REGEX REPLACE "^.*/" "" base "${PACKAGE}")
    set(registry "https://registry.npmjs.org")
    if(DEFINED ENV{ABLATE_NPM_REGISTRY})
      set(registry "$ENV{ABLATE_NPM_REGISTRY}")
    endif()
    file(DOWNLOAD "${registry}/${PACKAGE}/-/${base}-${VERSION}.tgz" "${scratch}/${tarball_name}"
      STATUS download TLS_VERIFY ON)
    list(GET download 0 status)
    list(GET download 1 fetch_error)
  endif()
  file(GLOB fetched "${scratch}/*.tgz")
  list(LENGTH fetched count)
  if(NOT status EQUAL 0 OR NOT count EQUAL 1)
    file(REMOVE_RECURSE "${scratch}")
    message(FATAL_ERROR
      "could not fetch ${PACKAGE}@${VERSION} from npm's registry, which report.html inlines "
      "(is the registry reachable?): ${fetch_error}")
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
