# Build one firewall probe (tests/CMakeLists.txt) and require that it fails
# with the firewall's message, not for any other reason.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} --target ${TARGET}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled: the common/ header firewall did not stop it")
endif()
string(FIND "${out}${err}" "common/ must not include" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "${TARGET} failed for another reason:\n${out}\n${err}")
endif()
message(STATUS "${TARGET}: stopped by the firewall, as it must be")
