/*  units.c - parsing sizes, durations, integers and booleans; see units.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libcore/units.h"

typedef struct {
    const char *suffix; /* as written, compared case-insensitively */
    double factor;      /* multiplier to the base unit */
} s_unit_t;

static const s_unit_t s_size_units[] = {
    {"b", 1.0},
    {"k", 1024.0},
    {"kb", 1024.0},
    {"kib", 1024.0},
    {"m", 1048576.0},
    {"mb", 1048576.0},
    {"mib", 1048576.0},
    {"g", 1073741824.0},
    {"gb", 1073741824.0},
    {"gib", 1073741824.0},
    {"t", 1099511627776.0},
    {"tb", 1099511627776.0},
    {"tib", 1099511627776.0},
    {NULL, 0},
};

static const s_unit_t s_duration_units[] = {
    {"ms", 1.0},      {"s", 1000.0},     {"m", 60000.0},
    {"h", 3600000.0}, {"d", 86400000.0}, {NULL, 0},
};

/* Split "1.5G" into 1.5 and "G".  Returns 0 or -1 if there is no number. */
static int
s_split_number (const char *text, double *number, const char **suffix)
{
    if (!text || !isdigit ((unsigned char) text[0]))
        return -1;
    char *end;
    errno = 0;
    *number = strtod (text, &end);
    if (errno || end == text || !isfinite (*number))
        return -1;
    *suffix = end;
    return 0;
}

static const s_unit_t *
s_find_unit (const s_unit_t *units, const char *suffix)
{
    for (const s_unit_t *u = units; u->suffix; u++)
        if (strcasecmp (u->suffix, suffix) == 0)
            return u;
    return NULL;
}

int
hearth_parse_size (const char *text, uint64_t plain_unit, uint64_t *bytes,
                   hearth_error_t *err)
{
    double number;
    const char *suffix;
    if (s_split_number (text, &number, &suffix) < 0)
        return hearth_errprintf (err,
                                 "'%s' is not a size (expected e.g. "
                                 "512M or 2G)",
                                 text ? text : "");
    double factor = (double) plain_unit;
    if (*suffix) {
        const s_unit_t *u = s_find_unit (s_size_units, suffix);
        if (!u)
            return hearth_errprintf (err,
                                     "'%s': unknown size unit '%s' "
                                     "(expected K, M, G or T)",
                                     text, suffix);
        factor = u->factor;
    }
    double value = number * factor;
    if (value >= 18446744073709551615.0)
        return hearth_errprintf (err, "'%s' is too large", text);
    /* not llround: its long long result overflows past 2^63 bytes */
    *bytes = (uint64_t) floor (value + 0.5);
    return 0;
}

int
hearth_parse_duration (const char *text, int64_t *ms, hearth_error_t *err)
{
    double number;
    const char *suffix;
    if (s_split_number (text, &number, &suffix) < 0)
        return hearth_errprintf (err,
                                 "'%s' is not a duration (expected e.g. "
                                 "500ms or 5s)",
                                 text ? text : "");
    double factor = 1.0;
    if (*suffix) {
        const s_unit_t *u = s_find_unit (s_duration_units, suffix);
        if (!u)
            return hearth_errprintf (err,
                                     "'%s': unknown duration unit '%s' "
                                     "(expected ms, s, m, h or d)",
                                     text, suffix);
        factor = u->factor;
    }
    double value = number * factor;
    if (value > 9.0e15)
        return hearth_errprintf (err, "'%s' is too long", text);
    *ms = (int64_t) llround (value);
    return 0;
}

int
hearth_parse_int (const char *text, int64_t min, int64_t max, int64_t *value,
                  hearth_error_t *err)
{
    if (!text || !*text)
        return hearth_errprintf (err, "expected a number, got nothing");
    char *end;
    errno = 0;
    long long v = strtoll (text, &end, 10);
    if (errno || *end || end == text || isspace ((unsigned char) text[0]))
        return hearth_errprintf (err, "'%s' is not a whole number", text);
    if (v < min || v > max)
        return hearth_errprintf (err, "%lld is out of range (%lld to %lld)", v,
                                 (long long) min, (long long) max);
    *value = v;
    return 0;
}

int
hearth_parse_bool (const char *text, int *value, hearth_error_t *err)
{
    static const char *const yes[] = {"true", "yes", "on", "1", NULL};
    static const char *const no[] = {"false", "no", "off", "0", NULL};
    for (int i = 0; text && yes[i]; i++) {
        if (strcasecmp (text, yes[i]) == 0)
            return (*value = 1), 0;
        if (strcasecmp (text, no[i]) == 0)
            return (*value = 0), 0;
    }
    return hearth_errprintf (err,
                             "'%s' is not a boolean (expected true or "
                             "false)",
                             text ? text : "");
}

char *
hearth_format_size (uint64_t bytes, char *buf, size_t size)
{
    static const char units[] = "KMGT";
    if (bytes < HEARTH_KiB) {
        snprintf (buf, size, "%llu", (unsigned long long) bytes);
        return buf;
    }
    double value = (double) bytes;
    int i = -1;
    while (value >= 1024.0 && i < 3) {
        value /= 1024.0;
        i++;
    }
    if (value == floor (value))
        snprintf (buf, size, "%.0f%c", value, units[i]);
    else
        snprintf (buf, size, "%.1f%c", value, units[i]);
    return buf;
}
