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

/* A worker id: the operator's name for the node (--id node-a) or the
   default worker-TIME-HOST-PID; never one that reads as an app or driver
   id, so that the id of a HEARTBEAT says who sent it. */
static bool
s_worker_id_ok (const char *id)
{
    /* '+' is safe in a file name, not one of a worker id's characters */
    return !strstr (id, "..") && !strchr (id, '+')
           && !hearth_id_valid (HEARTH_ID_APP, id)
           && !hearth_id_valid (HEARTH_ID_DRIVER, id);
}

bool
hearth_id_valid (hearth_id_kind_t kind, const char *id)
{
    if (!id || (unsigned) kind > HEARTH_ID_WORKER)
        return false;
    size_t len = strnlen (id, HEARTH_ID_MAX + 1);
    if (len > HEARTH_ID_MAX || !hearth_name_safe (id))
        return false;
    if (kind == HEARTH_ID_WORKER)
        return s_worker_id_ok (id);
    const char *prefix = s_prefix[kind];
    size_t plen = strlen (prefix);
    if (strncmp (id, prefix, plen) != 0 || len < plen + s_stamp_len + 2)
        return false;
    const char *stamp = id + plen;
    if (!s_all_digits (stamp, s_stamp_len) || stamp[s_stamp_len] != '-')
        return false;
    const char *tail = stamp + s_stamp_len + 1;
    size_t tlen = strlen (tail);
    return tlen >= 4 && tlen <= 10 && s_all_digits (tail, tlen);
}
