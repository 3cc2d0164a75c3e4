/*  crc32c.c - CRC-32C with the x86 instruction or a slicing-by-8 table;
    see crc32c.h. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "libcore/crc32c.h"

/* The reflected Castagnoli polynomial. */
static const uint32_t s_poly = 0x82F63B78u;

/* s_table[k][b]: the CRC of byte b followed by k zero bytes. */
static uint32_t s_table[8][256];
static pthread_once_t s_once = PTHREAD_ONCE_INIT;
/* The processor has the crc32 instruction (SSE 4.2). */
static bool s_hw;

static void
s_init (void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int i = 0; i < 8; i++)
            c = (c >> 1) ^ (s_poly & (0u - (c & 1)));
        s_table[0][b] = c;
    }
    for (int k = 1; k < 8; k++)
        for (int b = 0; b < 256; b++)
            s_table[k][b] =
                (s_table[k - 1][b] >> 8) ^ s_table[0][s_table[k - 1][b] & 0xff];
#if defined(__x86_64__)
    __builtin_cpu_init ();
    s_hw = __builtin_cpu_supports ("sse4.2");
#endif
}

/* The running (not inverted) CRC over data, eight bytes at a time. */
static uint32_t
s_soft (uint32_t c, const unsigned char *p, size_t len)
{
    while (len > 0 && ((uintptr_t) p & 7)) {
        c = (c >> 8) ^ s_table[0][(c ^ *p++) & 0xff];
        len--;
    }
    while (len >= 8) {
        uint64_t w;
        memcpy (&w, p, 8);
        w ^= c; /* little-endian: the low bytes come first */
        c = s_table[7][w & 0xff] ^ s_table[6][(w >> 8) & 0xff]
            ^ s_table[5][(w >> 16) & 0xff] ^ s_table[4][(w >> 24) & 0xff]
            ^ s_table[3][(w >> 32) & 0xff] ^ s_table[2][(w >> 40) & 0xff]
            ^ s_table[1][(w >> 48) & 0xff] ^ s_table[0][w >> 56];
        p += 8;
        len -= 8;
    }
    while (len-- > 0)
        c = (c >> 8) ^ s_table[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__)
/* The same with the crc32 instruction. */
__attribute__ ((target ("sse4.2"))) static uint32_t
s_hard (uint32_t c, const unsigned char *p, size_t len)
{
    uint64_t c64 = c;
    while (len > 0 && ((uintptr_t) p & 7)) {
        c64 = __builtin_ia32_crc32qi ((uint32_t) c64, *p++);
        len--;
    }
    while (len >= 8) {
        uint64_t w;
        memcpy (&w, p, 8);
        c64 = __builtin_ia32_crc32di (c64, w);
        p += 8;
        len -= 8;
    }
    while (len-- > 0)
        c64 = __builtin_ia32_crc32qi ((uint32_t) c64, *p++);
    return (uint32_t) c64;
}
#endif

uint32_t
hearth_crc32c_extend (uint32_t crc, const void *data, size_t len)
{
    pthread_once (&s_once, s_init);
    uint32_t c = ~crc;
#if defined(__x86_64__)
    if (s_hw)
        return ~s_hard (c, data, len);
#endif
    return ~s_soft (c, data, len);
}

uint32_t
hearth_crc32c_table (uint32_t crc, const void *data, size_t len)
{
    pthread_once (&s_once, s_init);
    return ~s_soft (~crc, data, len);
}

uint32_t
hearth_crc32c (const void *data, size_t len)
{
    return hearth_crc32c_extend (0, data, len);
}
