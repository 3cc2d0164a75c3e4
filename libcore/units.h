/*  units.h - sizes ("512M", "2G") and durations ("500ms", "5s") as people
    write them in flags and config files.

    Sizes use binary multiples: K = 1024, M = 1024^2, G, T; an optional
    trailing "B" or "iB" is accepted ("512MiB", "2GB"); a fraction is allowed
    ("1.5G").  A plain number is in the caller's default unit (bytes for
    most options, MiB for memory options).  Durations take ms, s, m, h, d; a
    plain number is milliseconds.
*/
#ifndef HEARTH_UNITS_H
#define HEARTH_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"

#define HEARTH_KiB ((uint64_t) 1024)
#define HEARTH_MiB (HEARTH_KiB * 1024)
#define HEARTH_GiB (HEARTH_MiB * 1024)

/* Parse a size into bytes.  plain_unit is what a bare number means (1 for
   bytes, HEARTH_MiB for memory).  Returns 0, or -1 with err filled. */
int hearth_parse_size (const char *text, uint64_t plain_unit, uint64_t *bytes,
                       hearth_error_t *err);

/* Parse a duration into milliseconds (>= 0).  Returns 0 or -1 with err. */
int hearth_parse_duration (const char *text, int64_t *ms, hearth_error_t *err);

/* Parse a whole decimal number within [min, max].  Returns 0 or -1. */
int hearth_parse_int (const char *text, int64_t min, int64_t max,
                      int64_t *value, hearth_error_t *err);

/* Parse true/false, yes/no, on/off, 1/0.  Returns 0 or -1 with err. */
int hearth_parse_bool (const char *text, int *value, hearth_error_t *err);

/* Write a size for people ("512M", "1.5G", "300") into buf. Returns buf. */
char *hearth_format_size (uint64_t bytes, char *buf, size_t size);

#endif
