# Building gfx942 code objects (.hsaco, ELF) from HIP sources with the toolchain cmake/rocm.cmake
# chose: Debian's clang-19 (default) or a ROCm installation's clang (CDNA_USE_ROCM).
# cdna3-facts.md §2: --offload-device-only --no-gpu-bundle-output gives a plain ELF.

if(NOT EXISTS ${CDNA_ROCM_BITCODE_DIR}/ockl.bc)
  message(FATAL_ERROR "ROCm device libraries not found in ${CDNA_ROCM_BITCODE_DIR}; "
                      "install the Debian package rocm-device-libs (ci/setup does)")
endif()

# A device-library directory = the toolchain's set (symlinked) + the gfx942 ISA-version module
# where the set lacks it (Debian's rocm-device-libs 5.2 predates gfx942; ROCm 6/7 ship it).
set(CDNA_DEVICE_LIB_DIR ${CMAKE_BINARY_DIR}/device-libs)
file(MAKE_DIRECTORY ${CDNA_DEVICE_LIB_DIR})
file(GLOB _cdna_bc ${CDNA_ROCM_BITCODE_DIR}/*.bc)
foreach(bc IN LISTS _cdna_bc)
  get_filename_component(n ${bc} NAME)
  file(CREATE_LINK ${bc} ${CDNA_DEVICE_LIB_DIR}/${n} SYMBOLIC)
endforeach()
if(EXISTS ${CDNA_ROCM_BITCODE_DIR}/oclc_isa_version_942.bc)
  add_custom_target(cdna_device_libs)
else()
  find_program(CDNA_LLVM_AS llvm-as-19 REQUIRED)
  add_custom_command(
    OUTPUT ${CDNA_DEVICE_LIB_DIR}/oclc_isa_version_942.bc
    COMMAND ${CDNA_LLVM_AS} ${PROJECT_SOURCE_DIR}/cmake/oclc_isa_version_942.ll
            -o ${CDNA_DEVICE_LIB_DIR}/oclc_isa_version_942.bc
    DEPENDS ${PROJECT_SOURCE_DIR}/cmake/oclc_isa_version_942.ll
    COMMENT "Assembling oclc_isa_version_942.bc")
  add_custom_target(cdna_device_libs DEPENDS ${CDNA_DEVICE_LIB_DIR}/oclc_isa_version_942.bc)
endif()

# cdna_add_code_object(<target> SOURCE <file.hip> OUTPUT <file.hsaco>
#                      [DEFINES A=1 ...] [OPT -O3 [more clang flags]] [DEPENDS headers...]
#                      [LAST flags...])
# Compiles one HIP source for gfx942 into one code object; <target> builds it. LAST flags come
# after the defaults, so they can override them (e.g. -Wno-error for third-party sources).
function(cdna_add_code_object target)
  cmake_parse_arguments(K "" "SOURCE;OUTPUT" "OPT;DEFINES;DEPENDS;LAST" ${ARGN})
  if(NOT K_OPT)
    set(K_OPT -O3)
  endif()
  set(defs)
  foreach(d IN LISTS K_DEFINES)
    list(APPEND defs -D${d})
  endforeach()
  get_filename_component(src ${K_SOURCE} ABSOLUTE)
  add_custom_command(
    OUTPUT ${K_OUTPUT}
    COMMAND ${CDNA_HIP_CLANG} -x hip --offload-arch=gfx942 --offload-device-only
            --no-gpu-bundle-output ${K_OPT} -std=c++20 -Wall -Werror
            --rocm-path=${CDNA_HIP_ROOT} --rocm-device-lib-path=${CDNA_DEVICE_LIB_DIR}
            -I${PROJECT_SOURCE_DIR} ${defs} ${K_LAST} -c ${src} -o ${K_OUTPUT}
    DEPENDS ${src} ${K_DEPENDS} cdna_device_libs
    COMMENT "gfx942 code object ${K_OUTPUT}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${K_OUTPUT})
  # Every code object, so that `cdna-verify` can depend on them all (tools/CMakeLists.txt).
  set_property(GLOBAL APPEND PROPERTY CDNA_CODE_OBJECT_TARGETS ${target})
endfunction()
