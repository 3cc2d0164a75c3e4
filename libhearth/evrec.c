/*  evrec.c - the task events' binary records and their lines; see
    evrec.h.

    The lines are those evtask.c used to format in place on the engine
    thread, less format 2's defaults (tests/unit/test_evrec.c keeps that
    formatter, with the defaults, and compares): moving the formatting
    here, to the writer thread, leaves the engine a copy of about 40
    bytes an event, and leaving the defaults out saves the writer about
    a third of its bytes and CPU (docs/performance.md, "The event log's
    cost").
*/
#include "config.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "libhearth/evfmt.h"
#include "libhearth/evrec.h"

/* A constant piece of a line. */
#define S_PUT(o, lit)                                                          \
    (memcpy ((o), (lit), sizeof (lit) - 1), (o) + sizeof (lit) - 1)

/* The largest line without its strings: keys, numbers, booleans. */
static const size_t s_fixed_max = 320;

/* The outcomes' names (none longer than s_outcome_max). */
static const char *const s_outcome_names[] = {
    [HEARTH_TS_STALE] = "stale",       [HEARTH_TS_NOTED] = "noted",
    [HEARTH_TS_ACCEPT] = "accepted",   [HEARTH_TS_DUPLICATE] = "duplicate",
    [HEARTH_TS_RETRY] = "retried",     [HEARTH_TS_GAVE_UP] = "gave_up",
    [HEARTH_TS_RELEASED] = "released", [HEARTH_TS_FETCH_WAIT] = "fetch_wait"};
static const size_t s_outcome_max = 10;

const char *
evrec_outcome_name (hearth_ts_outcome_t out)
{
    const size_t n = sizeof s_outcome_names / sizeof *s_outcome_names;
    return (size_t) out < n && s_outcome_names[out] ? s_outcome_names[out]
                                                    : "unknown";
}

/* ---- the engine's side -------------------------------------------------- */

size_t
evrec_end_size (size_t state_len, size_t error_len)
{
    return sizeof (evrec_end_t) + state_len + error_len;
}

char *
evrec_put_start (char *o, const evrec_start_t *r)
{
    memcpy (o, r, sizeof *r);
    return o + sizeof *r;
}

char *
evrec_put_end (char *o, const evrec_end_t *r, const char *state,
               const char *error)
{
    memcpy (o, r, sizeof *r);
    o += sizeof *r;
    memcpy (o, state, r->state_len);
    o += r->state_len;
    if (r->error_len)
        memcpy (o, error, r->error_len);
    return o + r->error_len;
}

/* ---- the writer's side -------------------------------------------------- */

size_t
evrec_length (const char *rec)
{
    if (*rec == EVREC_TASK_START)
        return sizeof (evrec_start_t);
    assert (*rec == EVREC_TASK_END);
    evrec_end_t r;
    memcpy (&r, rec, sizeof r);
    return evrec_end_size (r.state_len, r.error_len);
}

size_t
evrec_line_max (const char *rec)
{
    if (*rec == EVREC_TASK_START)
        return s_fixed_max;
    evrec_end_t r;
    memcpy (&r, rec, sizeof r);
    return s_fixed_max + EVFMT_STRING_MAX ((size_t) r.state_len)
           + EVFMT_STRING_MAX (s_outcome_max)
           + EVFMT_STRING_MAX ((size_t) r.error_len);
}

/* time_ms's digits, from the cache when it is the last one's. */
static char *
s_put_time (char *o, int64_t time_ms, evrec_cache_t *cache)
{
    if (!cache->time_len || cache->time_ms != time_ms) {
        cache->time_ms = time_ms;
        cache->time_len =
            (size_t) (evfmt_int (cache->time_text, time_ms) - cache->time_text);
    }
    /* the whole buffer, a copy of constant size: the line's room (its
       fixed part alone is s_fixed_max) holds it */
    memcpy (o, cache->time_text, sizeof cache->time_text);
    return o + cache->time_len;
}

/* What both lines have after their name: the time and the attempt. */
static char *
s_put_attempt (char *o, evrec_cache_t *cache, int64_t time_ms, uint32_t stage,
               uint64_t index, int attempt, int exec_id)
{
    o = S_PUT (o, "\",\"time_ms\":");
    o = s_put_time (o, time_ms, cache);
    o = S_PUT (o, ",\"stage\":");
    o = evfmt_int (o, stage);
    o = S_PUT (o, ",\"index\":");
    o = evfmt_int (o, (int64_t) index);
    o = S_PUT (o, ",\"attempt\":");
    o = evfmt_int (o, attempt);
    o = S_PUT (o, ",\"executor\":");
    return evfmt_int (o, exec_id);
}

/* The locality levels' names, as Spark's (hearth_locality_t's order). */
static const char *const s_locality_names[] = {
    "NO_PREF", "PROCESS_LOCAL", "NODE_LOCAL", "RACK_LOCAL", "ANY"};
enum { s_localities = sizeof s_locality_names / sizeof *s_locality_names };

static char *
s_put_locality (char *o, uint8_t level)
{
    o = S_PUT (o, ",\"locality\":\"");
    size_t len = strlen (s_locality_names[level]);
    memcpy (o, s_locality_names[level], len);
    return S_PUT (o + len, "\"");
}

static char *
s_format_start (char *o, const char *rec, evrec_cache_t *cache)
{
    evrec_start_t r;
    memcpy (&r, rec, sizeof r);
    o = S_PUT (o, "{\"event\":\"task_start");
    o = s_put_attempt (o, cache, r.time_ms, r.stage, r.index, r.attempt,
                       r.exec_id);
    /* format 2: locality only when not NO_PREF, speculative only when
       true */
    if (r.locality != HEARTH_LOC_NO_PREF && r.locality < s_localities)
        o = s_put_locality (o, r.locality);
    return r.speculative ? S_PUT (o, ",\"speculative\":true}\n")
                         : S_PUT (o, "}\n");
}

/* Whether the state is FINISHED, the one format 2 leaves out. */
static bool
s_finished (const char *state, size_t len)
{
    return len == sizeof "FINISHED" - 1 && memcmp (state, "FINISHED", len) == 0;
}

static char *
s_format_end (char *o, const char *rec, evrec_cache_t *cache)
{
    evrec_end_t r;
    memcpy (&r, rec, sizeof r);
    const char *state = rec + sizeof r, *error = state + r.state_len;
    const char *outcome = evrec_outcome_name (r.outcome);
    o = S_PUT (o, "{\"event\":\"task_end");
    o = s_put_attempt (o, cache, r.time_ms, r.stage, r.index, r.attempt,
                       r.exec_id);
    /* format 2 leaves out what most attempts share: state FINISHED,
       outcome accepted, no error, no result bytes */
    if (!s_finished (state, r.state_len)) {
        o = S_PUT (o, ",\"state\":");
        o = evfmt_string (o, state, r.state_len);
    }
    if (r.outcome != HEARTH_TS_ACCEPT) {
        o = S_PUT (o, ",\"outcome\":");
        o = evfmt_string (o, outcome, strlen (outcome));
    }
    o = S_PUT (o, ",\"run_us\":");
    o = evfmt_int (o, r.run_us);
    if (r.has_error) {
        o = S_PUT (o, ",\"error\":");
        o = evfmt_string (o, error, r.error_len);
    }
    if (r.result_bytes) {
        o = S_PUT (o, ",\"result_bytes\":");
        o = evfmt_int (o, (int64_t) r.result_bytes);
    }
    if (r.outcome == HEARTH_TS_FETCH_WAIT)
        o = S_PUT (o, ",\"fetch_failed\":true");
    if (r.locality != HEARTH_LOC_NO_PREF && r.locality < s_localities)
        o = s_put_locality (o, r.locality);
    return S_PUT (o, "}\n");
}

char *
evrec_format (char *o, const char *rec, evrec_cache_t *cache)
{
    return *rec == EVREC_TASK_START ? s_format_start (o, rec, cache)
                                    : s_format_end (o, rec, cache);
}
