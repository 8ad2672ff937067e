# Run a command that writes OUT, then require OUT to equal the committed
# file WANT (a generated file kept in the repository, such as a picture in
# docs/). On a difference, say how to regenerate it.
#   cmake "-DCMD=prog|arg|arg" -DOUT=<file> -DWANT=<file> "-DHOW=<command>" -P expect_same_file.cmake
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${WANT} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "${WANT} is out of date (the renderer or the scenario changed); "
                      "regenerate it in the source tree with: ${HOW}")
endif()
