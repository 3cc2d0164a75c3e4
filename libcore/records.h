/*  records.h - the records of a partitioned stage: lines, their keys,
    and the partition a key goes to.

    A task's output is a sequence of records: lines ending in '\n' (a last
    line without one counts, and gets one).  A record's key is its bytes
    before the first TAB, or the whole line (without its '\n') when it has
    none: Hadoop Streaming's rule, so that any command can take part.  A
    key goes to partition FNV-1a-64 (key) mod R, the same on every machine
    and every run (docs/jobs.md gives the function, so that a user can
    compute it too).
*/
#ifndef HEARTH_RECORDS_H
#define HEARTH_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The 64-bit FNV-1a hash of len bytes (offset basis 0xcbf29ce484222325,
   prime 0x100000001b3). */
static inline uint64_t
hearth_key_hash (const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The length of the key of the record at line, len bytes without its
   '\n': up to the first TAB, else all of it. */
static inline size_t
hearth_record_key_len (const char *line, size_t len)
{
    const char *tab = memchr (line, '\t', len);
    return tab ? (size_t) (tab - line) : len;
}

/* The partition, 0..partitions-1, of the record at line (len bytes,
   without its '\n'). */
static inline uint32_t
hearth_record_partition (const char *line, size_t len, uint32_t partitions)
{
    return (uint32_t) (hearth_key_hash (line, hearth_record_key_len (line, len))
                       % partitions);
}

/* Compare the keys of two records (bytewise, a shorter key that is a
   prefix of the other first), as a sorted shuffle orders them. */
static inline int
hearth_record_key_cmp (const char *a, size_t alen, const char *b, size_t blen)
{
    size_t ka = hearth_record_key_len (a, alen);
    size_t kb = hearth_record_key_len (b, blen);
    int c = memcmp (a, b, ka < kb ? ka : kb);
    return c ? c : (ka > kb) - (ka < kb);
}

#endif
