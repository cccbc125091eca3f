# Which HIP toolchain builds the gfx942 code objects and the HIP executor (docs/ci.md "ROCm builds").
#
#   default (CDNA_USE_ROCM OFF): Debian's clang-19, its device libraries (rocm-device-libs) and
#     libamdhip64 (HIP 5.2). A ROCm installation found by auto-detection is only reported, with the
#     flag that would use it.
#   -DCDNA_USE_ROCM=ON [-DCDNA_ROCM_PATH=DIR]: the ROCm 6.x/7.x installation at DIR (default:
#     $ROCM_PATH, then /opt/rocm): its clang, device libraries, HIP headers and libamdhip64.
#     Configuring fails with one message naming what is missing when there is no usable ROCm.
#
# Sets: CDNA_HIP_CLANG (clang++ for code objects), CDNA_ROCM_BITCODE_DIR (device-library bitcode),
# CDNA_HIP_ROOT (--rocm-path of the code-object compile), CDNA_HIP_INCLUDE_DIR, CDNA_AMDHIP64
# (the HIP runtime library), CDNA_BUILD_HIP (one line naming the build's HIP, for --version and
# report.json).
#
# Layouts followed (not run here; docs/ci.md): ROCm 6.x keeps clang in $ROCM/llvm/bin (a link to
# $ROCM/lib/llvm) and the device libraries in $ROCM/amdgcn/bitcode; ROCm 7.x keeps them in clang's
# resource directory $ROCM/lib/llvm/lib/clang/<N>/lib/amdgcn/bitcode (and may drop the llvm link);
# TheRock builds in $ROCM/lib/llvm/amdgcn/bitcode (the legacy and TheRock paths are the ones clang's
# AMDGPU driver, RocmInstallationDetector, searches). The version is the first line of
# $ROCM/.info/version (e.g. "6.2.0-66").

option(CDNA_USE_ROCM "Build code objects and the HIP executor with a ROCm 6.x/7.x installation (docs/ci.md)" OFF)
set(CDNA_ROCM_PATH "" CACHE PATH "ROCm installation for CDNA_USE_ROCM (default: $ENV{ROCM_PATH}, then /opt/rocm)")

# cdna_rocm_probe(<root> <prefix>): sets <prefix>_CLANG, <prefix>_BITCODE, <prefix>_VERSION and
# <prefix>_MISSING (what the installation lacks, "; "-separated; empty when usable).
function(cdna_rocm_probe root prefix)
  set(missing)
  set(clang)
  foreach(c IN ITEMS llvm/bin/clang++ lib/llvm/bin/clang++)
    if(NOT clang AND EXISTS ${root}/${c})
      set(clang ${root}/${c})
    endif()
  endforeach()
  if(NOT clang)
    list(APPEND missing "clang++ (${root}/llvm/bin/clang++ or ${root}/lib/llvm/bin/clang++)")
  endif()
  file(GLOB resource_dirs LIST_DIRECTORIES true ${root}/lib/llvm/lib/clang/*/lib/amdgcn/bitcode)
  set(bitcode)
  foreach(d IN ITEMS ${root}/amdgcn/bitcode ${resource_dirs} ${root}/lib/llvm/amdgcn/bitcode)
    if(NOT bitcode AND EXISTS ${d}/ockl.bc)
      set(bitcode ${d})
    endif()
  endforeach()
  if(NOT bitcode)
    # One string: list(APPEND) of two would add two items, joined later with "; ".
    list(APPEND missing "device libraries (ockl.bc in ${root}/amdgcn/bitcode, ${root}/lib/llvm/lib/clang/<N>/lib/amdgcn/bitcode or ${root}/lib/llvm/amdgcn/bitcode)")
  endif()
  if(NOT EXISTS ${root}/include/hip/hip_runtime_api.h)
    list(APPEND missing "HIP headers (${root}/include/hip/hip_runtime_api.h)")
  endif()
  if(NOT EXISTS ${root}/lib/libamdhip64.so)
    list(APPEND missing "the HIP runtime (${root}/lib/libamdhip64.so)")
  endif()
  set(version)
  if(EXISTS ${root}/.info/version)
    file(STRINGS ${root}/.info/version version LIMIT_COUNT 1)
    string(STRIP "${version}" version)
    if(NOT version MATCHES "^[67]\\.")
      list(APPEND missing "a ROCm 6.x or 7.x version (${root}/.info/version says '${version}')")
    endif()
  else()
    list(APPEND missing "its version file (${root}/.info/version)")
  endif()
  list(JOIN missing "; " missing)
  set(${prefix}_CLANG "${clang}" PARENT_SCOPE)
  set(${prefix}_BITCODE "${bitcode}" PARENT_SCOPE)
  set(${prefix}_VERSION "${version}" PARENT_SCOPE)
  set(${prefix}_MISSING "${missing}" PARENT_SCOPE)
endfunction()

# The installation to use or report: the explicit path, else $ROCM_PATH, else /opt/rocm.
if(CDNA_ROCM_PATH)
  set(_cdna_rocm_root ${CDNA_ROCM_PATH})
  set(_cdna_rocm_how "-DCDNA_ROCM_PATH")
elseif(DEFINED ENV{ROCM_PATH} AND NOT "$ENV{ROCM_PATH}" STREQUAL "")
  set(_cdna_rocm_root $ENV{ROCM_PATH})
  set(_cdna_rocm_how "$ROCM_PATH")
else()
  set(_cdna_rocm_root /opt/rocm)
  set(_cdna_rocm_how "the default /opt/rocm")
endif()
cdna_rocm_probe(${_cdna_rocm_root} _cdna_rocm)

if(CDNA_USE_ROCM)
  if(NOT IS_DIRECTORY ${_cdna_rocm_root})
    message(FATAL_ERROR "CDNA_USE_ROCM=ON but the ROCm directory ${_cdna_rocm_root} (${_cdna_rocm_how}) does not exist. "
                        "Pass -DCDNA_ROCM_PATH=<ROCm 6.x/7.x directory>, or -DCDNA_USE_ROCM=OFF for Debian's clang-19 "
                        "and HIP.")
  elseif(_cdna_rocm_MISSING)
    message(FATAL_ERROR "CDNA_USE_ROCM=ON but ${_cdna_rocm_root} (${_cdna_rocm_how}) is not a usable ROCm 6.x/7.x "
                        "installation: missing ${_cdna_rocm_MISSING}. Pass -DCDNA_ROCM_PATH=<ROCm directory>, or "
                        "-DCDNA_USE_ROCM=OFF for Debian's clang-19 and HIP.")
  endif()
  set(CDNA_HIP_CLANG ${_cdna_rocm_CLANG})
  set(CDNA_ROCM_BITCODE_DIR ${_cdna_rocm_BITCODE})
  set(CDNA_HIP_ROOT ${_cdna_rocm_root})
  set(CDNA_HIP_INCLUDE_DIR ${_cdna_rocm_root}/include)
  set(CDNA_AMDHIP64 ${_cdna_rocm_root}/lib/libamdhip64.so)
  set(CDNA_BUILD_HIP "ROCm ${_cdna_rocm_VERSION} (${_cdna_rocm_root})")
  message(STATUS "cdna-verify: building with ROCm ${_cdna_rocm_VERSION} at ${_cdna_rocm_root}: clang ${CDNA_HIP_CLANG}, "
                 "device libraries ${CDNA_ROCM_BITCODE_DIR}")
else()
  find_program(CDNA_HIP_CLANG clang++-19 REQUIRED)
  set(CDNA_ROCM_BITCODE_DIR /usr/lib/x86_64-linux-gnu/amdgcn/bitcode CACHE PATH
      "Debian's ROCm device-library bitcode (package rocm-device-libs)")
  set(CDNA_HIP_ROOT /usr)
  set(CDNA_HIP_INCLUDE_DIR /usr/include)
  find_library(CDNA_AMDHIP64 amdhip64 PATHS /usr/lib/x86_64-linux-gnu REQUIRED)
  file(STRINGS /usr/include/hip/hip_version.h _cdna_hip_v REGEX "#define HIP_VERSION_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3" _cdna_hip_v "${_cdna_hip_v}")
  set(CDNA_BUILD_HIP "Debian HIP ${_cdna_hip_v} (clang-19, /usr)")
  if(NOT _cdna_rocm_MISSING)
    message(STATUS "cdna-verify: ROCm ${_cdna_rocm_VERSION} found at ${_cdna_rocm_root} (${_cdna_rocm_how}); not used: "
                   "configure with -DCDNA_USE_ROCM=ON to build with it")
  endif()
endif()
