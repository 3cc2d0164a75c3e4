/*  evline.h - one line of an event log (docs/event-log.md) read without
    building a tree: the object's top-level members as spans of the line.

    cJSON on every line of a million-task log costs too much
    (docs/history.md, "Speed"); this scanner checks the JSON syntax of
    the line while it records where each member's key and value lie, so
    that a reader asks for the few fields it needs.  Nested values
    (log_start's settings) stay spans, for cJSON_ParseWithLength.

    Everything here borrows the line: a hist_line_t is valid while the
    bytes it was parsed from are.
*/
#ifndef HEARTH_HISTORY_EVLINE_H
#define HEARTH_HISTORY_EVLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds of formats 1 and 2 (app_resumed and stage_skipped: a
   resumed driver's); HIST_EV_OTHER for a kind this reader does not know
   (a newer writer's: ignored, as the format says). */
typedef enum {
    HIST_EV_OTHER = 0,
    HIST_EV_LOG_START,
    HIST_EV_APP_START,
    HIST_EV_APP_END,
    HIST_EV_JOB_START,
    HIST_EV_JOB_END,
    HIST_EV_STAGE_START,
    HIST_EV_STAGE_END,
    HIST_EV_TASK_START,
    HIST_EV_TASK_END,
    HIST_EV_EXEC_ADDED,
    HIST_EV_EXEC_REMOVED,
    HIST_EV_DROPPED,
    HIST_EV_APP_RESUMED,
    HIST_EV_STAGE_SKIPPED,
} hist_kind_t;

/* At most this many members are kept; later ones are checked, not kept. */
#define HIST_LINE_FIELDS 40

typedef struct {
    const char *key; /* the key's bytes, without quotes (as written) */
    size_t key_len;  /* its length */
    const char *val; /* the value's JSON text (a string with its quotes) */
    size_t val_len;  /* its length */
} hist_field_t;

typedef struct {
    hist_kind_t kind;                     /* from "event" */
    int64_t time_ms;                      /* "time_ms", or -1 */
    int nfields;                          /* members kept */
    hist_field_t field[HIST_LINE_FIELDS]; /* in the line's order */
} hist_line_t;

/* Parse one line (without its newline; trailing spaces and a \r
   allowed).  0 when it is a JSON object with a string "event"; -1 when
   it is not (a cut or foreign line). */
int hist_line_parse (const char *text, size_t len, hist_line_t *out);

/* The kind named by the text s (NUL-terminated). */
hist_kind_t hist_kind_of (const char *s, size_t len);

/* The member key, or NULL. */
const hist_field_t *hist_line_get (const hist_line_t *l, const char *key);

/* An integer member (a JSON number with no fraction or exponent, within
   int64): true and *v, else false (absent, null, not an integer). */
bool hist_line_int (const hist_line_t *l, const char *key, int64_t *v);

/* An integer member, or dflt. */
int64_t hist_line_int_or (const hist_line_t *l, const char *key, int64_t dflt);

/* A boolean member: true only for the literal true. */
bool hist_line_true (const hist_line_t *l, const char *key);

/* The longest string a reader keeps (names, reasons, errors, settings),
   in bytes: a longer one is cut (docs/history.md, "Bounds"). */
#define HIST_MAX_STR 1024

/* A string member, unescaped into a new NUL-terminated string (caller
   frees), cut to HIST_MAX_STR bytes (hist_cap), or NULL when absent,
   null, not a string, or out of memory. */
char *hist_line_str (const hist_line_t *l, const char *key);

/* Cut s, in place, to at most HIST_MAX_STR bytes when it is longer: its
   first bytes up to a UTF-8 character's start, then "...".  Returns s. */
char *hist_cap (char *s);

/* True when the string member key equals s (no copy when it has no
   escapes). */
bool hist_line_is (const hist_line_t *l, const char *key, const char *s);

/* A task_end's state and outcome: the member, or the value format 2
   leaves out ("FINISHED", "accepted") when it is absent.  The same as
   hist_line_is otherwise. */
bool hist_task_state_is (const hist_line_t *l, const char *s);
bool hist_task_outcome_is (const hist_line_t *l, const char *s);
/* Their text into dst (size bytes), with those defaults. */
void hist_task_state (const hist_line_t *l, char *dst, size_t size);
void hist_task_outcome (const hist_line_t *l, char *dst, size_t size);

/* A JSON string's text (with its quotes), unescaped: a new string
   (caller frees), or NULL when it is not a valid string or no memory
   (not cut: for comparisons). */
char *hist_json_unescape (const char *val, size_t len);

#endif
