/*  masters.c - a list of master URLs and the one a client follows; see
    masters.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/log.h"
#include "libcore/masters.h"
#include "libcore/sock.h"

/* Room for the text of the whole list: every URL and ", " between. */
#define S_TEXT_MAX (HEARTH_MASTERS_MAX * (HEARTH_MASTER_URL_MAX + 2))

struct hearth_masters {
    char urls[HEARTH_MASTERS_MAX][HEARTH_MASTER_URL_MAX + 1]; /* the list */
    size_t count;          /* URLs in it (1..MAX) */
    size_t index;          /* the one followed */
    char text[S_TEXT_MAX]; /* the list, for messages */
    uint64_t epoch;        /* highest epoch seen, or 0 */
};

static bool
s_blank (char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Check one URL (n bytes at s, blanks trimmed), the place-th of the
   list, and copy it to out. */
static int
s_element (const char *s, size_t n, size_t place, size_t count, char *out,
           hearth_error_t *err)
{
    char where[64] = "";
    if (count > 1 || place > 1)
        snprintf (where, sizeof where, "element %zu of the list: ", place);
    while (n && s_blank (*s))
        s++, n--;
    while (n && s_blank (s[n - 1]))
        n--;
    if (n == 0)
        return hearth_errprintf (err,
                                 "%san empty URL (expected "
                                 "tcp://HOST:PORT[,tcp://HOST:PORT...])",
                                 where);
    /* tcp://h1:7077,h2:7077, as Spark users write spark://h1,h2: an
       element after the first without a scheme takes tcp:// */
    size_t scheme = place > 1 && !memmem (s, n, "://", 3) ? 6 : 0;
    if (n + scheme > HEARTH_MASTER_URL_MAX)
        return hearth_errprintf (err, "%sa URL longer than %d bytes", where,
                                 HEARTH_MASTER_URL_MAX);
    memcpy (out, "tcp://", scheme);
    memcpy (out + scheme, s, n);
    out[scheme + n] = '\0';
    char host[256];
    int port;
    hearth_error_t uerr;
    if (hearth_url_split (out, host, sizeof host, &port, &uerr) < 0)
        return hearth_errprintf (err, "%s%s", where, uerr.text);
    return 0;
}

/* Split list into self's urls. */
static int
s_split (hearth_masters_t *self, const char *list, hearth_error_t *err)
{
    if (!list)
        return hearth_errprintf (err, "no master URL");
    size_t count = 1;
    for (const char *p = list; *p; p++)
        count += *p == ',';
    if (count > HEARTH_MASTERS_MAX)
        return hearth_errprintf (err,
                                 "%zu master URLs: at most %d are "
                                 "allowed",
                                 count, HEARTH_MASTERS_MAX);
    const char *s = list;
    for (size_t i = 0; i < count; i++) {
        const char *end = strchr (s, ',');
        size_t n = end ? (size_t) (end - s) : strlen (s);
        if (s_element (s, n, i + 1, count, self->urls[i], err) < 0)
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp (self->urls[j], self->urls[i]) == 0)
                return hearth_errprintf (err,
                                         "element %zu of the list: '%s' "
                                         "is element %zu already",
                                         i + 1, self->urls[i], j + 1);
        s = end ? end + 1 : s + n;
    }
    self->count = count;
    return 0;
}

static void
s_text (hearth_masters_t *self)
{
    size_t used = 0;
    for (size_t i = 0; i < self->count; i++)
        used += (size_t) snprintf (self->text + used, sizeof self->text - used,
                                   "%s%s", i ? ", " : "", self->urls[i]);
}

hearth_masters_t *
hearth_masters_parse (const char *list, hearth_error_t *err)
{
    hearth_masters_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (s_split (self, list, err) < 0) {
        hearth_masters_destroy (&self);
        return NULL;
    }
    s_text (self);
    return self;
}

int
hearth_masters_check (const char *list, hearth_error_t *err)
{
    hearth_masters_t *self = hearth_masters_parse (list, err);
    if (!self)
        return -1;
    hearth_masters_destroy (&self);
    return 0;
}

void
hearth_masters_destroy (hearth_masters_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

size_t
hearth_masters_count (const hearth_masters_t *self)
{
    return self->count;
}

const char *
hearth_masters_url (const hearth_masters_t *self, size_t i)
{
    return i < self->count ? self->urls[i] : NULL;
}

const char *
hearth_masters_text (const hearth_masters_t *self)
{
    return self->text;
}

const char *
hearth_masters_current (const hearth_masters_t *self)
{
    return self->urls[self->index];
}

const char *
hearth_masters_next (hearth_masters_t *self)
{
    self->index = (self->index + 1) % self->count;
    return self->urls[self->index];
}

/* The place of url in the list, or -1. */
static long
s_place (const hearth_masters_t *self, const char *url)
{
    for (size_t i = 0; i < self->count; i++)
        if (strcmp (self->urls[i], url) == 0)
            return (long) i;
    return -1;
}

bool
hearth_masters_has (const hearth_masters_t *self, const char *url)
{
    return url && s_place (self, url) >= 0;
}

int
hearth_masters_follow (hearth_masters_t *self, const char *leader,
                       hearth_error_t *err)
{
    char url[HEARTH_MASTER_URL_MAX + 1];
    if (!leader || s_element (leader, strlen (leader), 1, 1, url, err) < 0)
        return leader ? -1 : hearth_errprintf (err, "no leader named");
    if (strcmp (url, hearth_masters_current (self)) == 0)
        return hearth_errprintf (err, "the standby names itself as the "
                                      "leader");
    long place = s_place (self, url);
    if (place < 0) {
        /* whoever can write the election's nodes (or plays a standby)
           must not be able to send the cluster's clients anywhere */
        hearth_errprintf (err,
                          "it names the leader %s, which is not one of "
                          "the masters given (%s): ignored",
                          url, self->text);
        errno = EACCES;
        return -1;
    }
    self->index = (size_t) place;
    return 0;
}

bool
hearth_masters_to_leader (hearth_masters_t *self, const char *leader,
                          bool *unlisted)
{
    hearth_error_t err;
    char from[HEARTH_MASTER_URL_MAX + 1];
    snprintf (from, sizeof from, "%s", hearth_masters_current (self));
    errno = 0;
    *unlisted = false;
    if (leader && *leader && hearth_masters_follow (self, leader, &err) == 0)
        return true;
    if (leader && *leader && errno == EACCES) {
        *unlisted = true;
        log_warn ("master %s is a standby (%s)", from, err.text);
    }
    hearth_masters_next (self);
    return false;
}

bool
hearth_masters_fence (hearth_masters_t *self, uint64_t epoch, uint64_t *highest)
{
    if (highest)
        *highest = self->epoch;
    if (epoch == 0)
        return true;
    if (epoch < self->epoch)
        return false;
    self->epoch = epoch;
    return true;
}

uint64_t
hearth_masters_epoch (const hearth_masters_t *self)
{
    return self->epoch;
}

void
hearth_masters_move_on (hearth_masters_t *self, const char *why)
{
    char from[HEARTH_MASTER_URL_MAX + 1];
    if (self->count < 2)
        return;
    snprintf (from, sizeof from, "%s", hearth_masters_current (self));
    log_info ("master %s %s; trying %s", from, why, hearth_masters_next (self));
}

bool
hearth_masters_standby (hearth_masters_t *self, const cJSON *body,
                        hearth_loglimit_t *limit, int64_t now_ms)
{
    char from[HEARTH_MASTER_URL_MAX + 1];
    hearth_error_t err;
    snprintf (from, sizeof from, "%s", hearth_masters_current (self));
    errno = 0;
    if (hearth_masters_follow (self, hearth_json_str (body, "leader"), &err)
        == 0) {
        log_info ("master %s is a standby; following the leader %s", from,
                  hearth_masters_current (self));
        return true;
    }
    /* a leader outside the list is a WARN: a foreign URL in the election,
       or a list that misses a master (or spells it otherwise) */
    bool foreign = errno == EACCES;
    hearth_log_limited (limit, foreign ? HEARTH_LOG_WARN : HEARTH_LOG_INFO,
                        foreign ? "standby, leader not listed"
                                : "standby, no leader",
                        now_ms, "master %s is a standby (%s)", from, err.text);
    hearth_masters_move_on (self, "is a standby");
    return false;
}

bool
hearth_masters_admit (hearth_masters_t *self, const hearth_msg_t *msg,
                      hearth_loglimit_t *limit, int64_t now_ms)
{
    uint64_t epoch = hearth_msg_epoch (msg), leader;
    if (hearth_masters_fence (self, epoch, &leader))
        return true;
    /* a deposed leader's: not even a sign of life */
    hearth_log_limited (limit, HEARTH_LOG_WARN,
                        "dropped a message of an older epoch", now_ms,
                        "dropped %s from a master of epoch %llu: the "
                        "leader's epoch is %llu",
                        hearth_cmd_name (msg->cmd), (unsigned long long) epoch,
                        (unsigned long long) leader);
    return false;
}
