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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "master/regdrivers.h"
#include "master/state.h"
#include "master/web.h"

/* A growing text. */
typedef struct {
    char *text;  /* the text (owned) */
    size_t len;  /* bytes in it */
    size_t size; /* bytes allocated */
    bool failed; /* out of memory */
} s_buf_t;

/* len bytes of text, appended. */
static void
s_raw (s_buf_t *b, const char *text, size_t len)
{
    if (b->failed)
        return;
    if (b->len + len + 1 > b->size) {
        size_t size = b->size * 2 + len + 65536;
        char *grown = realloc (b->text, size);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->text = grown;
        b->size = size;
    }
    memcpy (b->text + b->len, text, len);
    b->len += len;
    b->text[b->len] = '\0';
}

/* A string literal, appended. */
#define S_LIT(b, lit) s_raw ((b), (lit), sizeof (lit) - 1)

/* "name": */
static void
s_key (s_buf_t *b, const char *name)
{
    s_raw (b, "\"", 1);
    s_raw (b, name, strlen (name));
    s_raw (b, "\":", 2);
}

/* "value" escaped (NULL: ""), without the closing quote.  Runs of plain
   characters go in one copy (ids, hosts). */
static void
s_quoted (s_buf_t *b, const char *value)
{
    const char *p = value ? value : "";
    s_raw (b, "\"", 1);
    while (*p) {
        size_t run = 0;
        while (p[run] && p[run] != '"' && p[run] != '\\'
               && (unsigned char) p[run] >= 0x20)
            run++;
        s_raw (b, p, run);
        p += run;
        if (*p) {
            char esc[8];
            if (*p == '"' || *p == '\\')
                snprintf (esc, sizeof esc, "\\%c", *p);
            else
                snprintf (esc, sizeof esc, "\\u%04x", (unsigned char) *p);
            s_raw (b, esc, strlen (esc));
            p++;
        }
    }
}

/* "name":"value" with value escaped (NULL: ""), then a comma unless
   last. */
static void
s_str (s_buf_t *b, const char *name, const char *value, bool last)
{
    s_key (b, name);
    s_quoted (b, value);
    s_raw (b, last ? "\"" : "\",", last ? 1 : 2);
}

/* Not Spark's: "waiting":{"code":...,"reason":...}, and a comma, for a
   record that waits (reason not NULL; master/waiting.h). */
static void
s_waiting (s_buf_t *b, const char *code, const char *reason)
{
    if (!reason)
        return;
    s_key (b, "waiting");
    S_LIT (b, "{");
    if (code)
        s_str (b, "code", code, false);
    s_str (b, "reason", reason, true);
    S_LIT (b, "},");
}

/* Which of a worker's addresses a Spark resources map lists. */
typedef enum { S_RES_ALL, S_RES_USED, S_RES_FREE } s_res_t;

/* Spark's "resources", "resourcesused" or "resourcesfree" of a worker:
   {"gpu":{"name":"gpu","addresses":["0"]}}, and a comma. */
/* A worker's labels, "labels":{"KEY":"VALUE",...} (Hearth's own field:
   Spark's workers have none). */
static void
s_labels (s_buf_t *b, const reg_worker_t *w)
{
    s_key (b, "labels");
    S_LIT (b, "{");
    const cJSON *l;
    bool first = true;
    cJSON_ArrayForEach (l, w->labels)
    {
        if (!first)
            S_LIT (b, ",");
        first = false;
        s_key (b, l->string);
        s_quoted (b, cJSON_IsString (l) ? l->valuestring : "");
        S_LIT (b, "\"");
    }
    S_LIT (b, "},");
}

static void
s_resources (s_buf_t *b, const char *key, const reg_worker_t *w, s_res_t which)
{
    char who[HEARTH_ID_MAX + 32];
    s_key (b, key);
    S_LIT (b, "{");
    for (size_t i = 0; i < w->resources.n; i++) {
        const hearth_resource_t *r = &w->resources.v[i];
        if (i)
            S_LIT (b, ",");
        s_key (b, r->name);
        S_LIT (b, "{");
        s_str (b, "name", r->name, false);
        s_key (b, "addresses");
        S_LIT (b, "[");
        bool first = true;
        for (size_t j = 0; j < r->naddrs; j++) {
            bool held = registry_worker_holder (w, r->name, r->addrs[j], who,
                                                sizeof who);
            if ((which == S_RES_USED && !held) || (which == S_RES_FREE && held))
                continue;
            if (!first)
                S_LIT (b, ",");
            first = false;
            s_quoted (b, r->addrs[j]);
            S_LIT (b, "\"");
        }
        S_LIT (b, "]}");
    }
    S_LIT (b, "},");
}

/* "name":V, with V in decimal, then a comma unless last. */
static void
s_int (s_buf_t *b, const char *name, int64_t v, bool last)
{
    char digits[24], *end = digits + sizeof digits, *q = end;
    uint64_t u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
    do
        *--q = (char) ('0' + u % 10);
    while ((u /= 10));
    if (v < 0)
        *--q = '-';
    s_key (b, name);
    s_raw (b, q, (size_t) (end - q));
    if (!last)
        s_raw (b, ",", 1);
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
    S_LIT (b, "\"workers\":[");
    bool first = true;
    for (reg_worker_t *w = zlistx_first (workers); w;
         w = zlistx_next (workers)) {
        int used = registry_worker_cores_used (w);
        int64_t mem_used = registry_worker_memory_used (w);
        s_raw (b, first ? "{" : ",{", first ? 1 : 2);
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
        s_labels (b, w);
        s_resources (b, "resources", w, S_RES_ALL);
        s_resources (b, "resourcesused", w, S_RES_USED);
        s_resources (b, "resourcesfree", w, S_RES_FREE);
        s_str (b, "state", registry_worker_state_name (w), false);
        s_int (b, "lastheartbeat", w->last_heartbeat_ms, true);
        S_LIT (b, "}");
        if (w->state == WORKER_ALIVE) {
            sums[0]++;
            sums[1] += w->cores;
            sums[2] += used;
            sums[3] += w->memory_mb;
            sums[4] += mem_used;
        }
    }
    S_LIT (b, "],");
}

static bool
s_app_active (const reg_app_t *a)
{
    return a->state == APP_WAITING || a->state == APP_RUNNING;
}

static void
s_app (s_buf_t *b, const reg_app_t *a, int64_t now, bool *first)
{
    s_raw (b, *first ? "{" : ",{", *first ? 1 : 2);
    *first = false;
    s_str (b, "id", a->id, false);
    s_int (b, "starttime", a->submit_ms, false);
    s_str (b, "name", a->name, false);
    /* an ended one's: what it held (Spark's completed applications show
       their cores, not 0) */
    s_int (b, "cores",
           a->state > APP_RUNNING ? a->cores_peak : a->cores_granted, false);
    s_str (b, "user", a->user, false);
    s_int (b, "memoryperexecutor", a->memory_per_executor_mb, false);
    s_int (b, "memoryperslave", a->memory_per_executor_mb, false);
    s_date (b, a->submit_ms);
    /* Spark's ResourceRequirement: {"name":"gpu","amount":1} */
    s_key (b, "resourcesperexecutor");
    S_LIT (b, "[");
    for (size_t i = 0; i < a->executor_resources.n; i++) {
        S_LIT (b, "{");
        s_str (b, "name", a->executor_resources.v[i].name, false);
        s_int (b, "amount", a->executor_resources.v[i].amount, true);
        S_LIT (b, "}");
        if (i + 1 < a->executor_resources.n)
            S_LIT (b, ",");
    }
    S_LIT (b, "],");
    s_waiting (b, a->waiting_code, a->waiting);
    s_str (b, "state", hearth_app_states[a->state], false);
    s_int (b, "duration", (a->end_ms ? a->end_ms : now) - a->submit_ms, true);
    S_LIT (b, "}");
}

/* "name":[...] of the applications of both lists that are (or are not)
   active. */
static void
s_apps (s_buf_t *b, master_t *m, const char *name, bool active, int64_t now)
{
    zlistx_t *lists[2] = {registry_apps (m->reg), registry_completed (m->reg)};
    bool first = true;
    s_key (b, name);
    S_LIT (b, "[");
    for (int i = 0; i < 2; i++) /* completed ones newest first (state.c) */
        for (reg_app_t *a = i ? zlistx_last (lists[i])
                              : zlistx_first (lists[i]);
             a; a = i ? zlistx_prev (lists[i]) : zlistx_next (lists[i]))
            if (s_app_active (a) == active)
                s_app (b, a, now, &first);
    S_LIT (b, "],");
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
    s_key (b, name);
    S_LIT (b, "[");
    for (int i = 0; i < 2; i++) /* completed ones newest first (state.c) */
        for (reg_driver_t *d = i ? zlistx_last (lists[i])
                                 : zlistx_first (lists[i]);
             d; d = i ? zlistx_prev (lists[i]) : zlistx_next (lists[i])) {
            if (s_driver_active (d) != active)
                continue;
            s_raw (b, first ? "{" : ",{", first ? 1 : 2);
            first = false;
            s_str (b, "id", d->id, false);
            s_int (b, "starttime", d->submit_ms, false);
            s_str (b, "state", hearth_driver_states[d->state], false);
            s_int (b, "cores", d->cores, false);
            s_int (b, "memory", d->memory_mb, false);
            s_date (b, d->submit_ms);
            s_str (b, "worker", d->worker_id, false);
            s_waiting (b, d->waiting_code, d->waiting);
            s_str (b, "mainclass", d->name, true);
            S_LIT (b, "}");
        }
    S_LIT (b, "],");
}

char *
master_web_spark_json (master_t *m, size_t *len)
{
    s_buf_t b = {0};
    int64_t sums[5] = {0}, now = registry_wall_ms ();
    S_LIT (&b, "{");
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
    S_LIT (&b, "}");
    if (b.failed) {
        free (b.text);
        return NULL;
    }
    *len = b.len;
    return b.text;
}
