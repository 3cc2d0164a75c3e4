/*  jstate.h - the master's journal records, and the state they rebuild:
    pure code (no I/O, no clock), unit-tested in tests/unit/test_journal.c.

    A journal file and a snapshot file (journal.h) are sequences of
    records, one per line:

        CCCCCCCC LLLLLLLL {"t":"app","id":"app-20240101000000-0001",...}\n

    LLLLLLLL is the length in bytes of the JSON text and CCCCCCCC the
    CRC-32 (IEEE 802.3, as in zlib) of everything between them and the
    newline (the length, its space and the JSON), both in lower-case hex:
    a record is proved whole when the byte its length points to is its
    newline and the CRC matches.  (Version 1 wrote "CCCCCCCC {...}\n", the
    CRC of the JSON alone; such lines are still read.)  The JSON is one
    object on one line (cJSON escapes newlines inside strings) whose
    member "t" names the record type:

        journal   {gen, version}   first record of a journal file
        snapshot  {gen, version}   first record of a snapshot file
        end       {records}        last record of a snapshot file
        worker    a worker, whole (upsert by "id")
        worker-   {id}             a worker forgotten
        app       an application, whole (upsert by "id")
        app-      {id}             an application forgotten
        exec      an executor, whole (upsert by "app_id" and "exec_id");
                  one in a final state (EXITED, KILLED, FAILED, LOST) is
                  removed
        driver    a cluster-mode driver, whole (upsert by "id")
        driver-   {id}             a driver forgotten
        outs      {app_id, outputs, max_shuffle_id}  a batch of an
                  application's outputs (outputs.h), appended to its
                  list in order; its list goes when the application is
                  forgotten or reaches a final state

    Types this code does not know are skipped (counted), so that a newer
    master can add some.  A bad record is skipped, reported and never
    applied, and the load goes on after it: a record proved whole but
    wrong inside (not a JSON object with a string "t", a header out of
    place) is skipped alone; bytes that are not a record proved whole (a
    write cut short, a CRC that does not match) are skipped up to the next
    record that is, wherever it starts.  What follows the last good record
    is the tail, which a writer may cut off.

    The state keeps each kind in a cJSON object keyed by id, in the order
    a replay must rebuild: workers in registration order; applications in
    registration order, except that one reaching a final state (FINISHED,
    FAILED, KILLED) moves to the end, so that the final ones are in the
    order they ended; executors by "APP_ID/EXEC_ID".  The records are kept
    as written (with their "t"); what they mean is the registry's business.
*/
#ifndef HEARTH_MASTER_JSTATE_H
#define HEARTH_MASTER_JSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The format written by this code. */
#define JSTATE_VERSION 2

/* What is wrong with a record. */
typedef enum {
    JREC_OK,    /* a good record */
    JREC_TORN,  /* the bytes end before the record does: a write cut
                   short */
    JREC_CRC,   /* no CRC field, no newline where the length says, or a
                   CRC that does not match */
    JREC_JSON,  /* not one JSON object */
    JREC_TYPE,  /* no string "t", or a known type without its key fields */
    JREC_ORDER, /* a header that is not first, or a second one */
} jrec_status_t;

/* What a load found. */
typedef struct {
    size_t records;       /* good records read (headers included) */
    size_t applied;       /* records that changed the state */
    size_t unknown;       /* records of unknown types, skipped */
    size_t good_bytes;    /* bytes from the start to the end of the last
                             good record */
    size_t bad_bytes;     /* bytes skipped, in all */
    size_t skipped;       /* stretches of bytes skipped */
    size_t skip_end;      /* where the last stretch skipped ends */
    size_t tail_bytes;    /* bytes after the last good record (skipped) */
    jrec_status_t status; /* JREC_OK when every byte was good, else what
                             was wrong first */
    size_t bad_line;      /* line number (from 1) of the first bad record */
    size_t bad_at;        /* its offset in bytes */
    const char *header;   /* "journal", "snapshot" or NULL (static) */
    int64_t gen;          /* the header's generation, or -1 */
    bool ended;           /* an "end" record was read (snapshots) */
} jload_t;

typedef struct jstate jstate_t;

/* CRC-32 of len bytes. */
uint32_t jstate_crc32 (const void *data, size_t len);

/* One record as a line (with its newline, NUL-terminated; caller frees);
 *len gets its length without the NUL.  NULL on no memory. */
char *jstate_encode (const cJSON *record, size_t *len);

/* Decode the first line of buf[0..len).  On JREC_OK, *record is a new
   object (caller deletes) and *used the bytes of the line with its
   newline; otherwise *record is NULL and *used the bytes of the bad line
   (all of them when it is torn). */
jrec_status_t jstate_decode (const char *buf, size_t len, size_t *used,
                             cJSON **record);

/* A short description of a status, e.g. "CRC mismatch". */
const char *jstate_status_text (jrec_status_t status);

/* A new, empty state.  NULL on no memory. */
jstate_t *jstate_new (void);
/* Free the state.  Accepts NULL and a NULL *self_p; sets *self_p to NULL;
   keeps errno. */
void jstate_destroy (jstate_t **self_p);

/* Apply one record (borrowed; copied as needed).  Returns 1 when it
   changed the state, 0 for a header, an end or an unknown type, -1 when it
   lacks its key fields or on no memory. */
int jstate_apply (jstate_t *self, const cJSON *record);

/* Called for each stretch of n bytes skipped (borrowed), and why. */
typedef void (jstate_skip_fn) (void *arg, const char *bytes, size_t n,
                               jrec_status_t status);

/* Apply every good record of a file's bytes, skipping bad ones as said
   above; fills rep, and calls on_skip (unless NULL) for every stretch
   skipped, in order. */
void jstate_load_skips (jstate_t *self, const char *buf, size_t len,
                        jload_t *rep, jstate_skip_fn *on_skip, void *arg);

/* The same without on_skip. */
void jstate_load (jstate_t *self, const char *buf, size_t len, jload_t *rep);

/* The state (borrowed; objects keyed by id, in replay order). */
const cJSON *jstate_workers (const jstate_t *self);
const cJSON *jstate_apps (const jstate_t *self);
const cJSON *jstate_execs (const jstate_t *self);
const cJSON *jstate_drivers (const jstate_t *self);
/* {APP_ID: [outs record, ...]}, in the order written. */
const cJSON *jstate_outputs (const jstate_t *self);

/* True when the state holds nothing. */
bool jstate_empty (const jstate_t *self);

#endif
