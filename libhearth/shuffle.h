/*  shuffle.h - the driver's side of data between stages: where each map
    output is (the map-output table), what a reduce task is told to fetch,
    what a lost map output costs, and results written to files.

    A partitioned stage's tasks ("map" tasks) write their output on their
    node; the driver only learns, per map task, which block server holds
    it and the stored size of each partition's block (STATUS_UPDATE
    map_sizes).  A task reading that stage ("reduce" task i) is launched
    with the list of those blocks for partition i and fetches them itself.
    When a block cannot be fetched, or the worker of its server is lost,
    every output of its server is dropped and exactly the map tasks that
    were lost run again; the reduce tasks wait for them without losing an
    attempt.  A stage with an output
    directory has each task write DIR/_temporary/part-NNNNN.ATTEMPT, which
    the driver renames to DIR/part-NNNNN for the one attempt it accepts.

    Everything here runs on the engine thread; launch.c calls it for each
    task sent and each update received, work.c when stages are submitted,
    finish and end.  docs/jobs.md "Partitioned stages" is the user's view.
*/
#ifndef HEARTH_LIBHEARTH_SHUFFLE_H
#define HEARTH_LIBHEARTH_SHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "libcore/proto.h"
#include "libcore/taskset.h"
#include "libhearth/internal.h"

/* The server of a map output on the driver's own node (local[N]: its
   executor runs no block server). */
#define SHUFFLE_NO_SERVER HEARTH_BLOCK_LOCAL
/* The "server" of a map output the driver keeps (inlineout.h). */
#define SHUFFLE_KEPT HEARTH_BLOCK_INLINE

/* The block servers the application's executors have named, each once. */
typedef struct shuffle_servers shuffle_servers_t;

/* An empty table.  NULL on no memory. */
shuffle_servers_t *shuffle_servers_new (void);
/* Accepts NULL and a NULL *self_p; sets *self_p to NULL; keeps errno. */
void shuffle_servers_destroy (shuffle_servers_t **self_p);
/* The index of the server at url with CURVE key (may be NULL); a NULL or
   empty url is SHUFFLE_NO_SERVER (also on no memory, logged). */
uint32_t shuffle_servers_intern (shuffle_servers_t *self, const char *url,
                                 const char *key);
/* The index of the server at url, or SHUFFLE_NO_SERVER when none has
   that url. */
uint32_t shuffle_servers_find (const shuffle_servers_t *self, const char *url);
/* Its URL (borrowed), or NULL for SHUFFLE_NO_SERVER. */
const char *shuffle_servers_url (const shuffle_servers_t *self, uint32_t id);
/* Server id belongs to worker worker_id (copied; nothing for NULL or "",
   or an unknown id): its loss finds it (shuffle_servers_of_worker). */
void shuffle_servers_set_worker (shuffle_servers_t *self, uint32_t id,
                                 const char *worker_id);
/* The worker of server id (borrowed), or NULL: not told, or no such
   server. */
const char *shuffle_servers_worker (const shuffle_servers_t *self, uint32_t id);
/* Its CURVE public key (borrowed), or NULL: none, or no such server. */
const char *shuffle_servers_key (const shuffle_servers_t *self, uint32_t id);
/* How many servers the table holds (their ids: 0 to that - 1). */
size_t shuffle_servers_count (const shuffle_servers_t *self);
/* The block server of worker worker_id, or SHUFFLE_NO_SERVER when no
   executor of it has named one. */
uint32_t shuffle_servers_of_worker (const shuffle_servers_t *self,
                                    const char *worker_id);

/* ---- submission ---------------------------------------------------------- */

/* A stage read whole by another (an input, unpartitioned, results not to
   files) is a one-partition shuffle: its tasks write their results, each
   with one trailing newline removed and one added, as a map output on
   their node (the map role's "whole"), and every task reading it fetches
   that partition of each, in task order, as its input.  So no input of
   any size goes through the driver, which keeps only results that are
   its own output (issue 42).  Marks every such stage of job (at submit,
   before shuffle_check_stage). */
void shuffle_mark_read_whole (hearth_job_t *job);
/* The name of task index's part file ("part-00007"). */
void shuffle_part_name (uint64_t index, char *buf, size_t size);
/* st's output directory (if any) made absolute: executors run
   elsewhere.  0, or -1 with err. */
int shuffle_absolute_output (hearth_stage_t *st, hearth_error_t *err);
/* The partitions st's tasks write: its own, 1 for a stage read whole, or
   0 (its results go to the driver or to files). */
uint32_t shuffle_partitions (const hearth_stage_t *st);

/* Rules a job's stage must keep, beyond those of jobs.c: a stage reading a
   partitioned one has exactly that many tasks, an output directory and
   partitions do not go together, no stage reads one whose results go to
   files, a stage whose results do not come to the driver (partitioned or
   read whole) has no result callback.  Returns 0, or -1 with the reason in text
   (size bytes). */
int shuffle_check_stage (const hearth_stage_t *st, char *text, size_t size);
/* Whether dir holds what a finished output leaves: part files or
   _SUCCESS (a job's output there would mix with it). */
bool shuffle_holds_output (const char *dir);
/* A stage of a job being submitted: its map-output table, and its output
   directory made absolute, created, and refused if it holds an earlier
   output; st->parts is set last (the stage's _temporary is then its
   own).  Returns 0, or -1 with err. */
int shuffle_prepare_stage (hearth_stage_t *st, hearth_error_t *err);
/* Whether a and b both write their part files to one directory (the
   same file, however named; false when either has none or is not
   there). */
bool shuffle_same_output (const hearth_stage_t *a, const hearth_stage_t *b);

/* ---- launching ----------------------------------------------------------- */

/* Whether the stage's tasks carry shuffle roles (map, reduce, output):
   they go out in JSON, never packed. */
bool shuffle_has_roles (const hearth_stage_t *st);
/* Whether st's only role is a map output read whole that the driver may
   keep: its tasks may go packed (LAUNCH_TASKS "whole_maps"), and their
   kept blocks come back packed (HEARTH_PACKED_MAP_BLOCK). */
bool shuffle_packs_whole (const hearth_stage_t *st);
/* Add task index's roles to its JSON form t in msg (a frame for a reduce
   task's blocks).  Returns 0, 1 when a map output it needs is missing
   (the task cannot run now: the caller reports it as a fetch failure,
   shuffle_missing_map saying which), or -1 on no memory. */
int shuffle_render (hearth_msg_t *msg, cJSON *t,
                    const shuffle_servers_t *servers, const hearth_stage_t *st,
                    uint64_t index, int attempt);

/* ---- status updates ------------------------------------------------------ */

/* The task set's state for an update of a task of st: a map task's
   FINISHED without valid map_sizes becomes FAILED (*error says why), a
   FAILED with fetch_failed becomes HEARTH_TS_FETCH_FAILED.  json is the
   update's JSON form (NULL: it came packed, so it has neither). */
hearth_ts_state_t shuffle_update_state (const hearth_stage_t *st,
                                        hearth_msg_t *msg, const cJSON *json,
                                        hearth_ts_state_t state,
                                        const char **error);
/* The task set accepted attempt of task index of st, run on server at
   host: register its map output (sizes from the update), or note where
   its part file is (its executor committed it: ASK_COMMIT) for the
   stage's manifest.  Returns 0, or -1 with err (no memory: the job
   fails). */
int shuffle_accepted (hearth_stage_t *st, uint64_t index, int attempt,
                      uint32_t server, const char *host, hearth_msg_t *msg,
                      const cJSON *json, hearth_error_t *err);
/* An attempt of an output stage's task that will not be accepted (a
   duplicate, a failure, a kill): its temporary file goes. */
void shuffle_discard (const hearth_stage_t *st, uint64_t index, int attempt);
/* A reduce task of st could not fetch a map output (the update's
   fetch_failed): drop every output of that server in the job (or the one
   output, for a block on the driver's node) and have the task set run
   those map tasks again.  Returns 0, or -1 with the reason in err when
   st has lost its input too many times in a row: the job fails. */
int shuffle_fetch_failed (hearth_taskset_t *ts, shuffle_servers_t *servers,
                          hearth_stage_t *st, const cJSON *json,
                          const char *error, hearth_error_t *err);

/* The block server server is gone with its worker (the master says the
   worker is lost; why borrowed, for the messages): every output it held
   in job is dropped and its map task runs again (as after a fetch
   failure), and every reduce attempt in flight that reads a block of
   some bytes from it is killed and waits for those map tasks,
   uncounted (hearth_taskset_refetch): it would only wait on a server
   that cannot answer.  A stage whose attempts were killed has lost its
   input once more (a round of fetch failures).  Returns 0 (also for
   SHUFFLE_NO_SERVER: nothing), or -1 with err when a stage has lost
   its input too many times in a row, or on no memory: the job fails. */
int shuffle_server_lost (hearth_taskset_t *ts, const shuffle_servers_t *servers,
                         hearth_job_t *job, uint32_t server, const char *why,
                         hearth_error_t *err);

/* ---- ends ---------------------------------------------------------------- */

/* Every task of st has finished: an output stage gets DIR/_SUCCESS. */
void shuffle_stage_done (hearth_stage_t *st);
/* The job has ended: the DIR/_temporary of its output stages that were
   prepared are removed. */
void shuffle_job_ended (hearth_job_t *job);

#endif
