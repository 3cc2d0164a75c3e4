/*  crc32c.h - CRC-32C (Castagnoli), the checksum of shuffle blocks.

    The polynomial iSCSI, ext4 and Spark's shuffle checksums use
    (0x1EDC6F41, reflected 0x82F63B78), with the usual initial value and
    final inversion: hearth_crc32c ("123456789", 9) is 0xE3069283.  On x86
    with SSE 4.2 the processor's crc32 instruction computes it (over 10
    GB/s); elsewhere a slicing-by-8 table (over 1 GB/s).
*/
#ifndef HEARTH_CRC32C_H
#define HEARTH_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of len bytes at data. */
uint32_t hearth_crc32c (const void *data, size_t len);

/* The CRC-32C of what crc covered followed by len bytes at data:
   hearth_crc32c_extend (hearth_crc32c (a, n), b, m) is the CRC of a then
   b.  hearth_crc32c_extend (0, data, len) is hearth_crc32c (data, len). */
uint32_t hearth_crc32c_extend (uint32_t crc, const void *data, size_t len);

/* hearth_crc32c_extend by the table alone, whatever the processor (the
   unit test holds the two ways to each other). */
uint32_t hearth_crc32c_table (uint32_t crc, const void *data, size_t len);

#endif
