/*  evrec.h - the task events as binary records: what the engine thread
    stores of a task_start or task_end (a memcpy of a small struct, a
    task_end's strings copied after it), and their JSON lines, which the
    writer thread makes from them (docs/event-log.md's format, byte for
    byte what the engine used to format itself).

    A record begins with its tag, a byte that is never '{': the chunks the
    engine fills mix these records with the rare events' lines, which all
    begin with '{', so the writer tells them apart by their first byte
    and writes both in the order they came (eventlog.c).

    No state: the engine calls the evrec_put_* functions, the writer the
    others, each on memory it owns.
*/
#ifndef HEARTH_LIBHEARTH_EVREC_H
#define HEARTH_LIBHEARTH_EVREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/taskset.h"

/* The records' tags (never '{', never '\n'). */
enum { EVREC_TASK_START = 1, EVREC_TASK_END = 2 };

/* task_start: attempt (stage, index, attempt) sent to exec_id. */
typedef struct {
    uint8_t tag;      /* EVREC_TASK_START */
    bool speculative; /* a copy of a straggler */
    uint8_t locality; /* hearth_locality_t it was offered at */
    int exec_id;      /* where it was sent */
    uint32_t stage;   /* its stage */
    int attempt;      /* its attempt */
    uint64_t index;   /* its task */
    int64_t time_ms;  /* the event's wall clock */
} evrec_start_t;

/* task_end; followed in the chunk by state_len bytes of its state and
   error_len of its error (no NUL). */
typedef struct {
    uint8_t tag;           /* EVREC_TASK_END */
    uint8_t outcome;       /* hearth_ts_outcome_t */
    bool has_error;        /* error is a string, not null */
    uint8_t locality;      /* hearth_locality_t it was offered at */
    int exec_id;           /* where it ran */
    uint32_t stage;        /* its stage */
    int attempt;           /* its attempt */
    uint32_t state_len;    /* bytes of its state */
    uint32_t error_len;    /* bytes of its error */
    uint64_t index;        /* its task */
    int64_t time_ms;       /* the event's wall clock */
    int64_t run_us;        /* how long it ran */
    uint64_t result_bytes; /* its result's size */
} evrec_end_t;

/* ---- the engine's side -------------------------------------------------- */

/* The bytes of a task_end record whose strings have these lengths. */
size_t evrec_end_size (size_t state_len, size_t error_len);
/* r at o (room for sizeof *r); returns the end. */
char *evrec_put_start (char *o, const evrec_start_t *r);
/* r and its strings at o (room for evrec_end_size): r's state_len bytes
   of state, error_len of error (r->has_error false: null, error unread);
   returns the end. */
char *evrec_put_end (char *o, const evrec_end_t *r, const char *state,
                     const char *error);

/* ---- the writer's side -------------------------------------------------- */

/* The writer's memory between lines: the events of one batch share
   their time (eventlog_hold_clock), so its digits are made once. */
typedef struct {
    int64_t time_ms;    /* the last time formatted */
    char time_text[24]; /* its digits */
    size_t time_len;    /* their length, 0: none yet */
} evrec_cache_t;

/* Whether byte c begins a record (else a line). */
static inline bool
evrec_is_record (char c)
{
    return c == EVREC_TASK_START || c == EVREC_TASK_END;
}
/* The bytes of the record at rec. */
size_t evrec_length (const char *rec);
/* The most bytes of its line. */
size_t evrec_line_max (const char *rec);
/* Its line at o, "}\n" included (room for evrec_line_max); the end.
   cache starts zeroed, and is the caller's. */
char *evrec_format (char *o, const char *rec, evrec_cache_t *cache);

/* The name a task_end gives outcome out ("accepted", "retried"...). */
const char *evrec_outcome_name (hearth_ts_outcome_t out);

#endif
