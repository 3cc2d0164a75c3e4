/*  webjson.c - Spark's master /json document, written as text straight
    from the registry; see web.h.  Field names are Spark standalone's
    (JsonProtocol.writeMasterState), so that dashboards and scripts made
    for Spark read it; memory is in MiB as there, times in ms since the
    epoch, and states are Hearth's (the same names as Spark's for
    workers and applications).

    No JSON tree is built: at 1,000 workers a tree of the state and one
    of Spark's took 8 ms a request (bench-web.sh), with the loop held
    meanwhile; the text alone takes a fraction of that. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "master/state.h"
#include "master/web.h"

/* A growing text. */
typedef struct {
    char *text;  /* the text (owned) */
    size_t len;  /* bytes in it */
    size_t size; /* bytes allocated */
    bool failed; /* out of memory */
} s_buf_t;

static void s_put (s_buf_t *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void
s_put (s_buf_t *b, const char *fmt, ...)
{
    for (int round = 0; round < 2 && !b->failed; round++) {
        va_list ap;
        va_start (ap, fmt);
        size_t room = b->size - b->len;
        int n = vsnprintf (b->text ? b->text + b->len : NULL, room, fmt, ap);
        va_end (ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if ((size_t) n < room) {
            b->len += (size_t) n;
            return;
        }
        size_t size = b->size * 2 + (size_t) n + 65536;
        char *text = realloc (b->text, size);
        if (!text)
            b->failed = true;
        else {
            b->text = text;
            b->size = size;
        }
    }
}

/* "name":"value" with value escaped (NULL: ""), then a comma unless
   last. */
static void
s_str (s_buf_t *b, const char *name, const char *value, bool last)
{
    s_put (b, "\"%s\":\"", name);
    for (const unsigned char *p = (const unsigned char *) (value ? value : "");
         *p; p++) {
        if (*p == '"' || *p == '\\')
            s_put (b, "\\%c", *p);
        else if (*p < 0x20)
            s_put (b, "\\u%04x", *p);
        else if (b->len + 1 < b->size)
            b->text[b->len++] = (char) *p; /* the common case, no printf */
        else
            s_put (b, "%c", *p);
    }
    s_put (b, "\"%s", last ? "" : ",");
}

static void
s_int (s_buf_t *b, const char *name, int64_t v, bool last)
{
    s_put (b, "\"%s\":%lld%s", name, (long long) v, last ? "" : ",");
}

/* Spark's submitdate: a date in words (UTC). */
static void
s_date (s_buf_t *b, int64_t ms)
{
    char text[64];
    time_t t = (time_t) (ms / 1000);
    struct tm tm;
    if (!gmtime_r (&t, &tm)
        || !strftime (text, sizeof text, "%a %b %d %H:%M:%S UTC %Y", &tm))
        snprintf (text, sizeof text, "?");
    s_str (b, "submitdate", text, false);
}

/* The workers, and the sums of the ALIVE ones (Spark counts those). */
static void
s_workers (s_buf_t *b, master_t *m, int64_t *sums)
{
    zlistx_t *workers = registry_workers (m->reg);
    s_put (b, "\"workers\":[");
    bool first = true;
    for (reg_worker_t *w = zlistx_first (workers); w;
         w = zlistx_next (workers)) {
        int used = registry_worker_cores_used (w);
        int64_t mem_used = registry_worker_memory_used (w);
        s_put (b, "%s{", first ? "" : ",");
        first = false;
        s_str (b, "id", w->id, false);
        s_str (b, "host", w->host, false);
        s_str (b, "webuiaddress", w->web_url, false);
        s_int (b, "cores", w->cores, false);
        s_int (b, "coresused", used, false);
        s_int (b, "coresfree", w->cores - used, false);
        s_int (b, "memory", w->memory_mb, false);
        s_int (b, "memoryused", mem_used, false);
        s_int (b, "memoryfree", w->memory_mb - mem_used, false);
        s_str (b, "state", hearth_worker_states[w->state], false);
        s_int (b, "lastheartbeat", w->last_heartbeat_ms, true);
        s_put (b, "}");
        if (w->state == WORKER_ALIVE) {
            sums[0]++;
            sums[1] += w->cores;
            sums[2] += used;
            sums[3] += w->memory_mb;
            sums[4] += mem_used;
        }
    }
    s_put (b, "],");
}

static bool
s_app_active (const reg_app_t *a)
{
    return a->state == APP_WAITING || a->state == APP_RUNNING;
}

static void
s_app (s_buf_t *b, const reg_app_t *a, int64_t now, bool *first)
{
    s_put (b, "%s{", *first ? "" : ",");
    *first = false;
    s_str (b, "id", a->id, false);
    s_int (b, "starttime", a->submit_ms, false);
    s_str (b, "name", a->name, false);
    s_int (b, "cores", a->cores_granted, false);
    s_str (b, "user", a->user, false);
    s_int (b, "memoryperexecutor", a->memory_per_executor_mb, false);
    s_int (b, "memoryperslave", a->memory_per_executor_mb, false);
    s_date (b, a->submit_ms);
    s_str (b, "state", hearth_app_states[a->state], false);
    s_int (b, "duration", (a->end_ms ? a->end_ms : now) - a->submit_ms, true);
    s_put (b, "}");
}

/* "name":[...] of the applications of both lists that are (or are not)
   active. */
static void
s_apps (s_buf_t *b, master_t *m, const char *name, bool active, int64_t now)
{
    zlistx_t *lists[2] = {registry_apps (m->reg), registry_completed (m->reg)};
    bool first = true;
    s_put (b, "\"%s\":[", name);
    for (int i = 0; i < 2; i++)
        for (reg_app_t *a = zlistx_first (lists[i]); a;
             a = zlistx_next (lists[i]))
            if (s_app_active (a) == active)
                s_app (b, a, now, &first);
    s_put (b, "],");
}

static bool
s_driver_active (const reg_driver_t *d)
{
    return d->state == DRIVER_SUBMITTED || d->state == DRIVER_RUNNING
           || d->state == DRIVER_RELAUNCHING;
}

static void
s_drivers (s_buf_t *b, master_t *m, const char *name, bool active)
{
    zlistx_t *lists[2] = {registry_drivers (m->reg),
                          registry_drivers_completed (m->reg)};
    bool first = true;
    s_put (b, "\"%s\":[", name);
    for (int i = 0; i < 2; i++)
        for (reg_driver_t *d = zlistx_first (lists[i]); d;
             d = zlistx_next (lists[i])) {
            if (s_driver_active (d) != active)
                continue;
            s_put (b, "%s{", first ? "" : ",");
            first = false;
            s_str (b, "id", d->id, false);
            s_int (b, "starttime", d->submit_ms, false);
            s_str (b, "state", hearth_driver_states[d->state], false);
            s_int (b, "cores", d->cores, false);
            s_int (b, "memory", d->memory_mb, false);
            s_date (b, d->submit_ms);
            s_str (b, "worker", d->worker_id, false);
            s_str (b, "mainclass", d->name, true);
            s_put (b, "}");
        }
    s_put (b, "],");
}

char *
master_web_spark_json (master_t *m, size_t *len)
{
    s_buf_t b = {0};
    int64_t sums[5] = {0}, now = registry_wall_ms ();
    s_put (&b, "{");
    s_str (&b, "url", m->url, false);
    s_workers (&b, m, sums);
    s_int (&b, "aliveworkers", sums[0], false);
    s_int (&b, "cores", sums[1], false);
    s_int (&b, "coresused", sums[2], false);
    s_int (&b, "memory", sums[3], false);
    s_int (&b, "memoryused", sums[4], false);
    s_apps (&b, m, "activeapps", true, now);
    s_apps (&b, m, "completedapps", false, now);
    s_drivers (&b, m, "activedrivers", true);
    s_drivers (&b, m, "completeddrivers", false);
    s_str (&b, "status", master_status (m), true);
    s_put (&b, "}");
    if (b.failed) {
        free (b.text);
        return NULL;
    }
    *len = b.len;
    return b.text;
}
