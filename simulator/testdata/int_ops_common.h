// Integer expressions evaluated by the int_ops kernel on the simulator and by the host test
// (the same source, compiled by clang for gfx942 and by g++ for the host).
#pragma once

#include <stdint.h>

#if defined(__HIP__)
#define CDNA_HD __host__ __device__
#else
#define CDNA_HD
#endif

#define CDNA_INT_OPS_OUTPUTS 32

CDNA_HD inline void cdna_int_ops(uint32_t a, uint32_t b, uint32_t c, uint32_t* o) {
  int32_t sa = (int32_t)a, sb = (int32_t)b;
  uint64_t d = ((uint64_t)c << 32) | a;
  o[0] = a / (b | 1u);
  o[1] = a % ((b & 0xffffu) | 1u);
  o[2] = (uint32_t)((sa >> 1) / ((sb >> 8) | 1));
  o[3] = (uint32_t)(sa % ((sb & 0xff) + 1));
  o[4] = (uint32_t)__builtin_popcount(a);
  o[5] = a ? (uint32_t)__builtin_clz(a) : 32u;
  o[6] = b ? (uint32_t)__builtin_ctz(b) : 32u;
  o[7] = (uint32_t)(((uint64_t)a * b) >> 32);
  o[8] = (uint32_t)(((int64_t)sa * sb) >> 32);
  o[9] = (uint32_t)(d * (uint64_t)b);
  o[10] = (uint32_t)((d * (uint64_t)b) >> 32);
  o[11] = (uint32_t)(d >> (b & 63));
  o[12] = (uint32_t)((int64_t)d >> (c & 63));
  o[13] = (uint32_t)((uint64_t)((int64_t)d / (int64_t)((b | 1u) & 0xfffffu)));
  o[14] = (uint32_t)(d % (uint64_t)((c | 1u) & 0xffffu));
  o[15] = sa < sb ? a : b;
  o[16] = a > b ? a : b;
  o[17] = (uint32_t)(int32_t)(int8_t)(a >> 8);
  o[18] = (uint32_t)(int32_t)(int16_t)(b >> 3);
  o[19] = (a >> 8) & 0xffu;
  o[20] = (a & 0xff00ff00u) | (b & 0x00ff00ffu);
  o[21] = (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31));
  o[22] = (uint32_t)(sa >> (b & 31));
  o[23] = (a ^ b) + (c & 0xffffu) * 3u;
  o[24] = sa < 0 ? 0u - a : a;
  o[25] = (uint32_t)(((uint64_t)a + b) >> 1);
  o[26] = (a & 0xffffffu) * (b & 0xffffu);
  o[27] = ((a >> 4) & 0x3ffu) | (((b >> 7) & 0x1fu) << 10);
  o[28] = (uint32_t)(a == b) + (uint32_t)(sa <= sb) * 2u + (uint32_t)(a >= c) * 4u;
  o[29] = c > 0x80000000u ? a - b : a + b;
  o[30] = (uint32_t)((uint64_t)d + ((uint64_t)b << 20));
  o[31] = (uint32_t)(((uint64_t)d + ((uint64_t)b << 20)) >> 32);
}
