# Run CMD (a ;-list) and check its exit code (RC) and that its stdout+stderr
# match REGEX. Used by command-line tests that must check a failure's message,
# which ctest's WILL_FAIL alone cannot.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "exit code ${rc}, want ${RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}':\n${out}\n${err}")
endif()
