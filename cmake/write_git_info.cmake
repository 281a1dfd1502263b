# Writes ${OUTPUT} with the current git commit and dirty flag; run at every build so the
# result's context block names the commit actually built. Rewrites only on change.
set(commit "unknown")
set(dirty "false")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(commit "unknown")
  endif()
  execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE status ERROR_QUIET)
  if(NOT "${status}" STREQUAL "")
    set(dirty "true")
  endif()
endif()
set(content "#pragma once\n#define MBBENCH_GIT_COMMIT \"${commit}\"\n#define MBBENCH_GIT_DIRTY ${dirty}\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
