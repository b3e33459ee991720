# Runs every Catch2 test case of one test binary in one process and fails unless the number of
# cases that ran equals the number the binary lists.
#
#   cmake -DTEST_BINARY=path/to/engine_tests [-DTEST_FILTER=<spec>] -P tests/run_every_case.cmake
#
# TEST_FILTER runs a part of the cases, named by their files' tags (Catch2's -#, "[#solver_test]";
# "~[#solver_test]" for every other file), listed and counted with the same filter, so that two
# complementary parts run side by side (tests/CMakeLists.txt).
#
# Why not catch_discover_tests: Catch2 2.13's discovery stores the names in a CMake list, so a
# name containing ';' becomes several ctest tests whose filters match nothing; Catch2 prints
# "No tests ran", exits 0, and the real case never runs. Here nothing is filtered by name.
# Also refused: hidden cases (tag [.]), which a plain run skips, and cases without assertions
# (--warn NoAssertions), which cannot fail.
# Prints "Catch2 cases: L listed, R ran, P passed, F failed" (scripts/test.sh adds these up).

if(NOT TEST_BINARY)
  message(FATAL_ERROR "run_every_case.cmake: pass -DTEST_BINARY=<Catch2 test binary>")
endif()

function(count_lines text out)
  string(REGEX MATCHALL "[^\n]+" lines "${text}")
  list(LENGTH lines n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

set(filter "")
if(TEST_FILTER)
  set(filter "-#" "${TEST_FILTER}")
endif()
execute_process(COMMAND "${TEST_BINARY}" --list-test-names-only ${filter} OUTPUT_VARIABLE listed_names RESULT_VARIABLE rc)
# Catch2 v2 exits with the number of cases listed.
if(rc LESS 0 OR rc MATCHES "[^0-9]")
  message(FATAL_ERROR "${TEST_BINARY} --list-test-names-only failed: ${rc}")
endif()
# Names may contain ';', which CMake splits lists on: count lines in the raw text instead.
string(REPLACE ";" "," listed_names "${listed_names}")
count_lines("${listed_names}" listed)

execute_process(COMMAND "${TEST_BINARY}" --list-test-names-only "[.]" OUTPUT_VARIABLE hidden_names)
string(REPLACE ";" "," hidden_names "${hidden_names}")
count_lines("${hidden_names}" hidden)

execute_process(COMMAND "${TEST_BINARY}" --warn NoAssertions ${filter}
                OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE run_rc
                ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)

# The console reporter's totals: "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed".
set(ran 0)
set(passed 0)
set(failed 0)
if(output MATCHES "All tests passed \\([0-9]+ assertions? in ([0-9]+) test cases?\\)")
  set(ran ${CMAKE_MATCH_1})
  set(passed ${CMAKE_MATCH_1})
elseif(output MATCHES "test cases: *([0-9]+) \\| *([0-9]+) passed \\| *([0-9]+) failed")
  set(ran ${CMAKE_MATCH_1})
  set(passed ${CMAKE_MATCH_2})
  set(failed ${CMAKE_MATCH_3})
elseif(output MATCHES "test cases: *([0-9]+) \\| *([0-9]+) failed")
  set(ran ${CMAKE_MATCH_1})
  set(failed ${CMAKE_MATCH_2})
endif()
message("Catch2 cases: ${listed} listed, ${ran} ran, ${passed} passed, ${failed} failed")

set(problems "")
if(listed EQUAL 0)
  string(APPEND problems "\n  the binary lists no test cases")
endif()
if(NOT ran EQUAL listed)
  string(APPEND problems "\n  ${ran} cases ran but ${listed} are listed")
endif()
if(hidden GREATER 0)
  string(APPEND problems "\n  ${hidden} hidden case(s) (tag [.]) never run:\n${hidden_names}")
endif()
if(NOT run_rc EQUAL 0)
  string(APPEND problems "\n  the test binary exited with ${run_rc}")
endif()
if(problems)
  message(FATAL_ERROR "Catch2 run refused:${problems}")
endif()
