# cdna_add_test(NAME SOURCES... LIBS... [LABELS ...] [PREFIX p])
# One GoogleTest executable; each TEST becomes a ctest test, named PREFIX + the gtest name (a
# second build of the same test file needs a PREFIX: equal ctest names would merge, and the
# labels of one would hide the other). Tests with the label "slow" are excluded from the
# default ctest preset (see CMakePresets.json).
function(cdna_add_test name)
  cmake_parse_arguments(T "" "PREFIX" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  set(labels unit)
  if(T_LABELS)
    set(labels ${T_LABELS})
  endif()
  gtest_discover_tests(${name} TEST_PREFIX "${T_PREFIX}" PROPERTIES LABELS "${labels}" DISCOVERY_TIMEOUT 60)
endfunction()
