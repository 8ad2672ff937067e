# Run a command and check its exit code and output (stdout and stderr
# together). Used for command-line tests that need both checks.
#   cmake "-DCMD=prog|arg|arg" -DRC=<code> "-DMATCH=<regex>" -P expect_run.cmake
# Arguments are separated by "|" so that they pass through ctest unchanged.
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE "\n" " " all "${out}${err}")
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "exit code ${rc}, expected ${RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT all MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "exit ${rc}, output matches '${MATCH}'")
