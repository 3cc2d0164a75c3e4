/*  shuffletask.h - what a task's shuffle roles do around the command or
    function it runs (docs/protocol.md, "map role", "reduce role", and
    LAUNCH_TASKS's "output").

    A task may have any of three roles beside running its command or
    function:
    - map: its output (a command's standard output, as it is read; a
      function's result bytes) goes through a partition writer
      (libcore/partwriter.h) into the map output SHUFFLE_ROOT/APP_ID/S/M.A
      of this node, whose partition sizes the final update carries;
    - reduce: its input is one partition of every map output of a
      shuffle: fetched (fetch.h) into a directory of the attempt's own,
      merged (libcore/blockmerge.h), and handed over as a stream, a
      chunk at a time (a command's standard input), or gathered up to
      max-input-bytes (a function's input bytes);
    - output: its output goes to a file, not back to the driver.
    map and output exclude each other (the decoder checks it); reduce
    goes with either.

    The roles belong to their task (task_t.roles) and are driven by the
    thread that runs it: shuffletask_begin before the command or the
    function, the stdin and stdout calls while a command runs (cmdrun.c),
    shuffletask_end after it.  The loop reads only the outcome, once the
    thread has handed the task back: the error, and the fields of the
    final update.  Whatever a role leaves on disk goes when the attempt
    does not succeed (a map output appears only whole; an output file is
    removed), and the attempt's fetched blocks go at its end.
*/
#ifndef HEARTH_EXECUTOR_SHUFFLETASK_H
#define HEARTH_EXECUTOR_SHUFFLETASK_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "executor/executor.h"
#include "libcore/proto.h"

/* The map role of a packed task of a stage read whole (LAUNCH_TASKS
   "whole_maps": one partition, an empty output an empty line, kept by
   the driver within inline_max).  NULL on no memory. */
shuffletask_t *shuffletask_whole_map (uint32_t shuffle, uint32_t inline_max);

/* On t's thread, after its function ran (ok: it succeeded, and it was
   not abandoned): the result of a packed function task of a stage read
   whole that has no roles (t->whole_max, orders.c) becomes its output:
   sent to the driver as it is (t->fn_kept) when shorter than whole_max;
   else the map role is made now and the output written to disk as any
   map output's.  Tiny tasks, most of them, so cost what a task
   returning a result costs.  On no memory the function's outcome
   becomes a failure. */
void shuffletask_whole_result (executor_t *ex, task_t *t, bool ok);

/* A finished task whose map output the driver keeps: that output as the
   task wrote it (borrowed, len bytes; NULL when empty), for the update
   that carries it.  False when it has none (on disk, or no map role). */
bool shuffletask_kept (const task_t *t, const void **block, size_t *len);

/* The roles of a task's LAUNCH_TASKS entry (checked by the decoder), the
   reduce's blocks read from sf's frames (borrowed; copied).  Returns 0
   with *roles the task's (NULL when it has none), or -1 on no memory. */
int shuffletask_from_json (const cJSON *json, const shared_frames_t *sf,
                           shuffletask_t **roles);

/* Free the roles, removing what an unfinished attempt left on disk.
   Accepts NULL and a NULL *self_p; nulls the pointer; keeps errno. */
void shuffletask_destroy (shuffletask_t **self_p);

/* On t's thread, before it runs: fetch and open a reduce's input (for a
   function: gathered into its input bytes), open the map output's writer
   or the output file.  Returns 0, or -1 when the attempt cannot run (its
   error, and a fetch failure, are kept for the update). */
int shuffletask_begin (executor_t *ex, task_t *t);

/* A function's input bytes from its reduce role: true with *data and
 *len (borrowed until shuffletask_end) if it has one. */
bool shuffletask_fn_input (const task_t *t, const void **data, size_t *len);

/* Whether a command's standard input is the reduce stream. */
bool shuffletask_feeds_stdin (const task_t *t);
/* The next piece of it: 1 with *data and *len (borrowed until the next
   call), 0 at its end, -1 on an error (kept; the command must stop). */
int shuffletask_stdin (task_t *t, const void **data, size_t *len);

/* Whether a command's standard output goes to the map output or the
   output file rather than into the result. */
bool shuffletask_takes_stdout (const task_t *t);
/* Take len more bytes of it.  Returns 0, or -1 on an error (kept; the
   command must stop; later bytes are dropped). */
int shuffletask_stdout (task_t *t, const void *data, size_t len);

/* On t's thread, after it ran; ok: the command or function succeeded.
   Then the map output is finished (its sizes kept), or the output file
   closed; a function's result bytes go there first (and are freed).
   When not ok, or when that fails (the error kept), nothing is left.
   The reduce's fetched blocks are removed either way. */
void shuffletask_end (executor_t *ex, task_t *t, bool ok);

/* As the executor ends: remove each output directory's _temporary its
   tasks wrote in, when empty (never through a link; one another
   attempt still fills stays).  The driver removes its own node's at the
   job's end; on the other nodes of a node-local output only the
   executors that worked there know of it. */
void shuffletask_remove_outdirs (executor_t *ex);

/* The error that ended the attempt because of a role, or NULL. */
const char *shuffletask_error (const task_t *t);

/* Whether the task's result goes back to the driver (no map, no
   output, not the output of a stage read whole). */
bool shuffletask_returns_result (const task_t *t);

/* Whether the final update in state carries role fields (and so travels
   in JSON form): a FINISHED map or output task, a fetch failure. */
bool shuffletask_has_fields (const task_t *t, const char *state);

/* Add those fields to update (a STATUS_UPDATE entry), map_sizes as a
   frame of msg.  Returns 0, or -1 on no memory. */
int shuffletask_add_fields (const task_t *t, const char *state, cJSON *update,
                            hearth_msg_t *msg);

/* Whether t's output, written whole, waits for the driver's leave to
   become its final file (LAUNCH_TASKS "commit_to"). */
bool shuffletask_asks_commit (const task_t *t);

/* The driver allowed it: move t's output to its final name (on this
   node, its temporary directory entered without following a link).  0,
   or -1 with *error (malloc'ed, or NULL on no memory). */
int shuffletask_commit (task_t *t, char **error);

/* The driver denied it (another attempt commits), or the attempt is
   killed while it waits: remove its output. */
void shuffletask_abandon (task_t *t);

#endif
