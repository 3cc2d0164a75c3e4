/*  ids.c - making and checking ids; see ids.h. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "libcore/ids.h"

static const char *const s_prefix[] = {
    [HEARTH_ID_APP] = "app-",
    [HEARTH_ID_DRIVER] = "driver-",
    [HEARTH_ID_WORKER] = "worker-",
};

/* Length of the timestamp part: YYYYMMDDHHMMSS. */
static const size_t s_stamp_len = 14;

static void
s_stamp (char *buf, size_t size, time_t t)
{
    struct tm tm;
    gmtime_r (&t, &tm);
    strftime (buf, size, "%Y%m%d%H%M%S", &tm);
}

char *
hearth_id_format (char *buf, size_t size, hearth_id_kind_t kind, time_t t,
                  unsigned seq)
{
    char stamp[32];
    s_stamp (stamp, sizeof stamp, t);
    snprintf (buf, size, "%s%s-%04u", s_prefix[kind], stamp, seq);
    return buf;
}

char *
hearth_worker_id_format (char *buf, size_t size, time_t t, const char *host,
                         int pid)
{
    char stamp[32], clean[64];
    size_t i;
    s_stamp (stamp, sizeof stamp, t);
    for (i = 0; host && host[i] && i < sizeof clean - 1; i++) {
        unsigned char c = host[i];
        /* no "..": the validator refuses it, the id names a directory */
        bool dot = c == '.' && (i == 0 || clean[i - 1] != '.');
        clean[i] = (isalnum (c) || dot) ? c : '-';
    }
    clean[i] = '\0';
    if (i == 0 || clean[0] == '.')
        snprintf (clean, sizeof clean, "host");
    snprintf (buf, size, "worker-%s-%s-%d", stamp, clean, pid);
    return buf;
}

static bool
s_all_digits (const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit ((unsigned char) s[i]))
            return false;
    return n > 0;
}

static bool
s_safe_char (unsigned char c)
{
    return isalnum (c) || c == '.' || c == '_' || c == '-' || c == '+';
}

bool
hearth_name_safe (const char *name)
{
    if (!name || !*name || name[0] == '.' || name[0] == '-')
        return false;
    size_t n = 0;
    for (; name[n]; n++)
        if (n >= 255 || !s_safe_char ((unsigned char) name[n]))
            return false;
    return true;
}

/* The worker tail: HOST-PID, host of [A-Za-z0-9.-], no "..". */
static bool
s_worker_tail_ok (const char *tail)
{
    const char *dash = strrchr (tail, '-');
    if (!dash || dash == tail || !s_all_digits (dash + 1, strlen (dash + 1)))
        return false;
    if (strstr (tail, ".."))
        return false;
    for (const char *p = tail; p < dash; p++)
        if (!isalnum ((unsigned char) *p) && *p != '.' && *p != '-')
            return false;
    return true;
}

bool
hearth_id_valid (hearth_id_kind_t kind, const char *id)
{
    if (!id || (unsigned) kind > HEARTH_ID_WORKER)
        return false;
    size_t len = strnlen (id, HEARTH_ID_MAX + 1);
    if (len > HEARTH_ID_MAX || !hearth_name_safe (id))
        return false;
    const char *prefix = s_prefix[kind];
    size_t plen = strlen (prefix);
    if (strncmp (id, prefix, plen) != 0 || len < plen + s_stamp_len + 2)
        return false;
    const char *stamp = id + plen;
    if (!s_all_digits (stamp, s_stamp_len) || stamp[s_stamp_len] != '-')
        return false;
    const char *tail = stamp + s_stamp_len + 1;
    if (kind == HEARTH_ID_WORKER)
        return s_worker_tail_ok (tail);
    size_t tlen = strlen (tail);
    return tlen >= 4 && tlen <= 10 && s_all_digits (tail, tlen);
}
