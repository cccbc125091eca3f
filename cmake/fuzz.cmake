# libFuzzer targets, built with clang++-19 (-fsanitize=fuzzer,address,undefined) by a custom
# command, since the main build uses g++. The sources a target exercises are compiled
# instrumented; everything else is linked from the g++-built static libraries (a symbol both
# define is taken from the instrumented object, which comes first on the link line).
#
# cdna_add_fuzzer(NAME SOURCES <fuzz target .cpp, then the sources to instrument>
#                 LIBS <library targets linked as built> [FLAGS <extra compile flags>]
#                 [LINK <extra link items>])
#   Builds ${CMAKE_CURRENT_BINARY_DIR}/NAME (custom target NAME_target, part of ALL).
# cdna_add_fuzz_tests(NAME KIND <loader|text|files> SMOKE <seconds; 0 = the seeds only, once>
#                     SEEDS <files or directories> [DICT <libFuzzer dictionary>])
#   ctest fuzz_<NAME> (label fuzz, 600 s, outside the default preset) and fuzz_<NAME>_smoke
#   (label smoke, in the default run); simulator/fuzz/run_fuzz.sh runs both.
# Both do nothing when clang++-19 or its fuzzer runtime (libclang-rt-19-dev) is missing.
include_guard(GLOBAL)

find_program(CDNA_FUZZ_CLANG clang++-19)
find_file(CDNA_FUZZ_RUNTIME libclang_rt.fuzzer-x86_64.a
          PATHS /usr/lib/llvm-19/lib/clang/19/lib/linux NO_DEFAULT_PATH)
if(CDNA_FUZZ_CLANG AND CDNA_FUZZ_RUNTIME)
  set(CDNA_FUZZ_ENABLED ON)
else()
  set(CDNA_FUZZ_ENABLED OFF)
  message(STATUS "libFuzzer targets: off (need clang++-19 and libclang-rt-19-dev)")
endif()

set(CDNA_FUZZ_FLAGS -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize=vptr
    -fno-sanitize-recover=undefined -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
    -I${PROJECT_SOURCE_DIR})

function(cdna_add_fuzzer name)
  if(NOT CDNA_FUZZ_ENABLED)
    return()
  endif()
  cmake_parse_arguments(F "" "" "SOURCES;LIBS;FLAGS;LINK" ${ARGN})
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(_libs)
  foreach(l IN LISTS F_LIBS)
    list(APPEND _libs $<TARGET_FILE:${l}>)
  endforeach()
  file(GLOB _headers ${PROJECT_SOURCE_DIR}/*/*.hpp ${PROJECT_SOURCE_DIR}/*/*/*.hpp ${PROJECT_SOURCE_DIR}/simulator/*.def)
  add_custom_command(
    OUTPUT ${_out}
    COMMAND ${CDNA_FUZZ_CLANG} ${CDNA_FUZZ_FLAGS} ${F_FLAGS} ${F_SOURCES} ${_libs} ${F_LINK} -o ${_out}
    DEPENDS ${F_SOURCES} ${_headers} ${F_LIBS}
    COMMENT "libFuzzer target ${name} (clang++-19, address+undefined)"
    VERBATIM)
  add_custom_target(${name}_target ALL DEPENDS ${_out})
endfunction()

function(cdna_add_fuzz_tests name)
  if(NOT CDNA_FUZZ_ENABLED)
    return()
  endif()
  cmake_parse_arguments(F "" "KIND;SMOKE;DICT" "SEEDS" ${ARGN})
  set(_run ${PROJECT_SOURCE_DIR}/simulator/fuzz/run_fuzz.sh)
  set(_bin ${CMAKE_CURRENT_BINARY_DIR}/${name}_fuzz)
  set(_env)
  if(F_DICT)
    set(_env ENVIRONMENT CDNA_FUZZ_DICT=${F_DICT})
  endif()
  add_test(NAME fuzz_${name}
    COMMAND ${_run} ${_bin} 600 ${CMAKE_CURRENT_BINARY_DIR}/work_${name} ${F_KIND} ${F_SEEDS})
  set_tests_properties(fuzz_${name} PROPERTIES LABELS fuzz TIMEOUT 900 ${_env})
  add_test(NAME fuzz_${name}_smoke
    COMMAND ${_run} ${_bin} ${F_SMOKE} ${CMAKE_CURRENT_BINARY_DIR}/smoke_${name} ${F_KIND} ${F_SEEDS})
  set_tests_properties(fuzz_${name}_smoke PROPERTIES LABELS smoke TIMEOUT 180 ${_env})
endfunction()
