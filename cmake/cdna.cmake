# cdna_add_test(NAME SOURCES... LIBS... [LABELS ...])
# One GoogleTest executable; each TEST becomes a ctest test. Tests with the
# label "slow" are excluded from the default ctest preset (see CMakePresets.json).
function(cdna_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  set(labels unit)
  if(T_LABELS)
    set(labels ${T_LABELS})
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS "${labels}" DISCOVERY_TIMEOUT 60)
endfunction()
