# cmake -D SOURCE_DIR=<tree> -D PROJECT_VERSION=<x.y.z> [-D EXCLUDE=<dir>]
#       -D TEMPLATES=<a.in;b.in> -D OUTPUTS=<a;b> -P gitState.cmake
#
# The git state of the working tree SOURCE_DIR, computed at every build (the custom
# target ablate_git_state runs this script) so that an edit made after configuring is
# seen. Sets, then writes each of TEMPLATES to its OUTPUTS with configure_file(@ONLY),
# which leaves a file untouched when its content is unchanged — an unchanged tree
# recompiles and relinks nothing:
#   GIT_COMMIT       HEAD's commit id (40 hex digits), or "unknown"
#   GIT_DESCRIBE     `git describe --always --tags` of HEAD, or "unknown"
#   GIT_DIRTY        "true" when the working tree differs from HEAD (tracked files
#                    changed, added or deleted, or untracked files git does not
#                    ignore), "false", or "unknown"
#   GIT_TREE         the git tree id of the working tree (equal to HEAD^{tree} when
#                    clean), or "unknown"
#   GIT_DIFF_SHA256  when dirty: SHA-256 of `git diff-tree -r -p --binary --full-index
#                    HEAD <GIT_TREE>` (the whole difference, binary files and new files
#                    included); "" when clean, "unknown" when unknown
#   ABLATE_CODE_VERSION  PROJECT_VERSION+GIT_DESCRIBE, with "-dirty" when GIT_DIRTY
# No git, no repository (a tarball) or a git error: "unknown", never a failed build.
#
# The working tree's id comes from a temporary index, so the repository's own index
# (what the user staged) is never touched: HEAD read into it, then `git add -A` of the
# working tree (EXCLUDE, a build directory inside the tree, left out), then
# `git write-tree`. This writes the tree's objects into the repository, as `git stash`
# would; unreferenced, `git gc` removes them in time.
cmake_minimum_required(VERSION 3.25)

foreach(required SOURCE_DIR PROJECT_VERSION TEMPLATES OUTPUTS)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "gitState.cmake: -D ${required}=... is required")
  endif()
endforeach()

# Runs git in SOURCE_DIR with `ARGN`; sets `out` to its output, or to "" when git is
# missing or fails.
function(ablate_git out)
  set(${out} "" PARENT_SCOPE)
  if(NOT GIT_EXECUTABLE)
    return()
  endif()
  set(env "")
  if(ablate_index)
    set(env ${CMAKE_COMMAND} -E env "GIT_INDEX_FILE=${ablate_index}")
  endif()
  execute_process(COMMAND ${env} ${GIT_EXECUTABLE} ${ARGN}
                  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE status
                  OUTPUT_VARIABLE output ERROR_QUIET)
  if(status EQUAL 0)
    set(${out} "${output}" PARENT_SCOPE)
  endif()
endfunction()

find_program(GIT_EXECUTABLE git)
set(GIT_COMMIT "unknown")
set(GIT_DESCRIBE "unknown")
set(GIT_DIRTY "unknown")
set(GIT_TREE "unknown")
set(GIT_DIFF_SHA256 "unknown")

# The repository's own index until the temporary one is made.
set(ablate_index "")
ablate_git(commit rev-parse --verify --quiet HEAD^{commit})
string(STRIP "${commit}" commit)
if(commit MATCHES "^[0-9a-f]+$")
  set(GIT_COMMIT "${commit}")
  ablate_git(describe describe --always --tags HEAD)
  string(STRIP "${describe}" GIT_DESCRIBE)
  ablate_git(head_tree rev-parse HEAD^{tree})
  string(STRIP "${head_tree}" head_tree)
  # The temporary index, beside the first output (in the build directory), under a
  # name of its own: two builds of one tree may run at once.
  list(GET OUTPUTS 0 first_output)
  get_filename_component(index_dir "${first_output}" DIRECTORY)
  file(MAKE_DIRECTORY "${index_dir}")
  string(RANDOM LENGTH 12 ablate_suffix)
  set(ablate_index "${index_dir}/.git-state-${ablate_suffix}.index")
  set(pathspec .)
  if(EXCLUDE)
    file(RELATIVE_PATH excluded "${SOURCE_DIR}" "${EXCLUDE}")
    if(excluded AND NOT excluded MATCHES "^\\.\\.")
      list(APPEND pathspec ":(exclude)${excluded}")
    endif()
  endif()
  ablate_git(read read-tree HEAD)
  ablate_git(added add -A -- ${pathspec})
  ablate_git(tree write-tree)
  file(REMOVE "${ablate_index}")
  set(ablate_index "")
  string(STRIP "${tree}" tree)
  if(tree MATCHES "^[0-9a-f]+$" AND head_tree MATCHES "^[0-9a-f]+$")
    set(GIT_TREE "${tree}")
    if(tree STREQUAL head_tree)
      set(GIT_DIRTY "false")
      set(GIT_DIFF_SHA256 "")
    else()
      set(GIT_DIRTY "true")
      ablate_git(diff diff-tree -r -p --binary --full-index --no-color HEAD ${tree})
      if(diff)
        string(SHA256 GIT_DIFF_SHA256 "${diff}")
      endif()
    endif()
  endif()
endif()

set(ABLATE_CODE_VERSION "${PROJECT_VERSION}+${GIT_DESCRIBE}")
if(GIT_DIRTY STREQUAL "true")
  string(APPEND ABLATE_CODE_VERSION "-dirty")
endif()

foreach(template output IN ZIP_LISTS TEMPLATES OUTPUTS)
  configure_file("${template}" "${output}" @ONLY)
endforeach()
