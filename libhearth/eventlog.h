/*  eventlog.h - the application's event log: one JSON object a line in
    DIR/APP_ID.events (then APP_ID.events.1, .2 ... as it rolls), the
    format docs/event-log.md describes.

    The engine thread builds each event into a chunk of memory (no system
    call): the rare ones as their JSON line (eventlog_begin, the field
    adders, eventlog_end), the task events as binary records (evtask.c,
    evrec.h).  A background thread turns the records into lines and
    writes whole chunks, handed to it when one is full, on eventlog_tick
    once events have waited a while, and at the end.  So no task costs a
    write(2) or its formatting on the engine thread, and a killed driver
    leaves whole lines but perhaps the last.

    Ownership: the engine owns the log (eventlog_new, eventlog_destroy);
    the parts that write events borrow it through work_eventlog().  Every
    function but eventlog_new accepts a NULL log and then does nothing,
    so callers need not check whether the log is on.  All but the writer
    thread's insides run on the engine thread only.
*/
#ifndef HEARTH_LIBHEARTH_EVENTLOG_H
#define HEARTH_LIBHEARTH_EVENTLOG_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libcore/conf.h"
#include "libcore/error.h"

/* The format version the first line names. */
#define EVENTLOG_FORMAT 2

typedef struct eventlog eventlog_t;

/* A log in dir (created if missing) for app_id (both copied), rolling to
   a new file once one would grow past roll_bytes (0: never).  The first
   file is created now; its writer thread started.  NULL with err set. */
eventlog_t *eventlog_new (const char *dir, const char *app_id,
                          uint64_t roll_bytes, hearth_error_t *err);
/* Write every event still buffered, sync the file, stop the writer.
   Accepts NULL; nulls the pointer; keeps errno. */
void eventlog_destroy (eventlog_t **self_p);
/* Hand buffered events to the writer once the oldest has waited
   flush_interval (500 ms), so a running application's log is current;
   the engine's periodic tick calls it. */
void eventlog_tick (eventlog_t *self);
/* The first file's path (borrowed). */
const char *eventlog_path (const eventlog_t *self);

/* ---- the application's log -------------------------------------------- */

/* The directory of conf's event log: event-log, else $HEARTH_EVENT_LOG_DIR
   (borrowed), or NULL when there is to be none. */
const char *eventlog_dir (const hearth_conf_t *conf);
/* Whether the event log's directory of conf can be made and written: 0,
   or -1 with err (checked at start-up, before the application
   registers). */
int eventlog_check_dir (const hearth_conf_t *conf, hearth_error_t *err);
/* The log of application app_id when conf asks for one (*el_p NULL when
   it does not), its first lines written: log_start (with every setting
   of conf) and app_start.  The driver of driver_epoch 2, 3... of a
   resumed application writes APP_ID.driverN.events, beside its earlier
   drivers' file.  Returns 0, or -1 with err. */
int eventlog_open_app (const hearth_conf_t *conf, const char *app_id,
                       int64_t driver_epoch, eventlog_t **el_p,
                       hearth_error_t *err);
/* app_end: state (FINISHED, FAILED, KILLED), why, and the totals. */
void eventlog_app_end (eventlog_t *self, const char *state, const char *reason);

/* What app_end sums up, counted as the events are written (evtask.c,
   the executors' events). */
typedef struct {
    int64_t start_ms;         /* the application's start (wall clock) */
    uint64_t tasks_succeeded; /* attempts whose result was taken */
    uint64_t tasks_failed;    /* attempts that failed */
    uint64_t executors;       /* executors added */
    int64_t core_ms_reserved; /* executors' cores x their lifetime */
    int64_t core_us_used;     /* attempts' run time, one core each */
} eventlog_totals_t;
/* The log's totals (NULL for a NULL log). */
eventlog_totals_t *eventlog_totals (eventlog_t *self);

/* One event: begin (writes "event" and "time_ms", the wall clock), the
   fields in order, end.  Strings are copied and escaped; a NULL string
   is written as null. */
void eventlog_begin (eventlog_t *self, const char *event);
void eventlog_str (eventlog_t *self, const char *key, const char *value);
void eventlog_int (eventlog_t *self, const char *key, int64_t value);
void eventlog_bool (eventlog_t *self, const char *key, bool value);
/* value (borrowed) printed unformatted. */
void eventlog_json (eventlog_t *self, const char *key, const cJSON *value);
void eventlog_end (eventlog_t *self);

/* The time events get: the wall clock in ms, or the one read by
   eventlog_hold_clock until eventlog_release_clock (a batch of task
   events shares one clock read).  Both accept NULL. */
int64_t eventlog_time_ms (eventlog_t *self);
void eventlog_hold_clock (eventlog_t *self);
void eventlog_release_clock (eventlog_t *self);

/* For the hot events (evtask.c), stored as binary records (evrec.h)
   that the writer thread formats: room for len bytes at the end of the
   chunk being filled, or NULL (no memory, or the writer stuck: the
   event is counted as dropped); then the record written up to end. */
char *eventlog_record_open (eventlog_t *self, size_t len);
void eventlog_record_close (eventlog_t *self, char *end);

#endif
