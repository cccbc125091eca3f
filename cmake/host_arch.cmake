# CDNA_HOST_ARCH: the host instruction set the simulator is built for.
#   native (default where the compiler accepts -march=native): the build machine's vector
#          extensions (AVX2/AVX-512 ...); the binaries may not run on an older CPU.
#   OFF    portable binaries (the compiler's default x86-64 baseline).
#   <arch> any -march value the compiler accepts (e.g. x86-64-v3).
# Applied (cdna_host_arch) to cdna_numerics, cdna_simulator and simulator_bench (so the Eigen
# attention the bench compares against is built with the same flags), nothing else: reference/
# (the MPFR oracle) and properties/ keep the portable flags. -ffp-contract=off always comes with
# it: with FMA available the compiler could otherwise fuse a*b+c, which rounds once instead of
# twice and changes results; the simulator's arithmetic must stay bit-identical.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-march=native CDNA_COMPILER_HAS_MARCH_NATIVE)
if(CDNA_COMPILER_HAS_MARCH_NATIVE)
  set(_cdna_host_arch_default native)
else()
  set(_cdna_host_arch_default OFF)
endif()
set(CDNA_HOST_ARCH ${_cdna_host_arch_default} CACHE STRING
    "-march value for the simulator, numerics and simulator_bench (native, OFF for portable, or an arch)")

# The flags cdna_host_arch adds, also printed by simulator_bench (its context).
if(CDNA_HOST_ARCH)
  check_cxx_compiler_flag(-march=${CDNA_HOST_ARCH} _cdna_host_arch_ok_${CDNA_HOST_ARCH})
  if(NOT _cdna_host_arch_ok_${CDNA_HOST_ARCH})
    message(FATAL_ERROR "CDNA_HOST_ARCH=${CDNA_HOST_ARCH}: the compiler does not accept "
                        "-march=${CDNA_HOST_ARCH}; use native, OFF (portable) or an arch it accepts")
  endif()
  set(CDNA_HOST_ARCH_FLAGS -march=${CDNA_HOST_ARCH} -ffp-contract=off)
else()
  set(CDNA_HOST_ARCH_FLAGS -ffp-contract=off)
endif()
message(STATUS "CDNA_HOST_ARCH=${CDNA_HOST_ARCH}: simulator, numerics and bench built with ${CDNA_HOST_ARCH_FLAGS}")

function(cdna_host_arch target)
  target_compile_options(${target} PRIVATE ${CDNA_HOST_ARCH_FLAGS})
endfunction()
