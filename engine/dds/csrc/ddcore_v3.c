/* The search of ddcore.c compiled a second time for x86-64-v3 CPUs (Haswell, Zen and later: BMI1/2, LZCNT, AVX2),
 * the fast path; ddcore.c itself is the portable path (any x86-64) and holds the dispatcher (dispatch.h), which
 * runs this one only where the CPU supports it.  On other compilers or architectures this file is empty and the
 * portable path is the only one. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("arch=x86-64-v3")
#define DD_VARIANT_V3 1
#include "ddcore.c"
#elif defined(__x86_64__) && defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt,fma,movbe"))), apply_to = function)
#define DD_VARIANT_V3 1
#include "ddcore.c"
#pragma clang attribute pop
#endif
