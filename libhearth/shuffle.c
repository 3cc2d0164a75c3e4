/*  shuffle.c - the driver's side of data between stages; see shuffle.h.

    The map-output table is one mapout_t per map task (internal.h): the
    server's index here and the partition sizes, R little-endian u64 as
    they came in the update, 8 bytes a block: a 1,000 x 1,000 shuffle
    takes 8 MB.  Nothing of the data itself comes through the driver.
*/
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/log.h"
#include "libcore/manifest.h"
#include "libcore/safefile.h"
#include "libhearth/inlineout.h"
#include "libhearth/shuffle.h"

/* Rounds of lost inputs in a row after which a stage is abandoned. */
static const size_t s_max_fetch_rounds = 4;

/* ---- submission ---------------------------------------------------------- */

uint32_t
shuffle_partitions (const hearth_stage_t *st)
{
    return st->partitions ? st->partitions : st->read_whole ? 1 : 0;
}

void
shuffle_mark_read_whole (hearth_job_t *job)
{
    /* a persisted one leaves its results on the workers for later jobs'
       readers, as its copy in a later job does (persist.h) */
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        st->read_whole = (st->persist != HEARTH_PERSIST_NONE || st->held)
                         && !st->partitions && !st->output_dir;
    }
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *in = job->stages[i]->input;
        if (in && !in->partitions && !in->output_dir)
            in->read_whole = true;
    }
}

int
shuffle_check_stage (const hearth_stage_t *st, char *text, size_t size)
{
    const hearth_stage_t *in = st->input;
    if (st->partitions && st->output_dir)
        snprintf (text, size,
                  "stage %s: \"output\" and \"partitions\" do not go together "
                  "(a partitioned stage's output is read by the next stage)",
                  st->name);
    else if (st->partitions && st->on_result)
        snprintf (text, size,
                  "stage %s: a partitioned stage sends no results to the "
                  "driver, so it cannot have a result callback",
                  st->name);
    else if (st->read_whole && st->on_result)
        snprintf (text, size,
                  "stage %s is the input of another stage: its results go to "
                  "that stage through the workers, not to the driver, so it "
                  "cannot have a result callback",
                  st->name);
    else if (in && in->output_dir)
        snprintf (text, size,
                  "stage %s: its input stage %s writes its results to files "
                  "in %s; read them from there",
                  st->name, in->name, in->output_dir);
    else if (in && in->partitions && st->ntasks != in->partitions)
        snprintf (text, size,
                  "stage %s has %llu tasks but its input stage %s has %u "
                  "partitions: a stage reading a partitioned one runs one "
                  "task per partition",
                  st->name, (unsigned long long) st->ntasks, in->name,
                  in->partitions);
    else
        return 0;
    return -1;
}

bool
shuffle_holds_output (const char *dir)
{
    DIR *d = opendir (dir);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir (d)))
        found = strncmp (e->d_name, "part-", 5) == 0
                || streq (e->d_name, "_SUCCESS");
    if (d)
        closedir (d);
    return found;
}

int
shuffle_absolute_output (hearth_stage_t *st, hearth_error_t *err)
{
    if (!st->output_dir || st->output_dir[0] == '/')
        return 0;
    char cwd[PATH_MAX], *path = NULL;
    if (!getcwd (cwd, sizeof cwd)
        || asprintf (&path, "%s/%s", cwd, st->output_dir) < 0)
        return hearth_errprintf (err, "stage %s: cannot make %s absolute: %s",
                                 st->name, st->output_dir, strerror (errno));
    free (st->output_dir);
    st->output_dir = path;
    return 0;
}

int
shuffle_prepare_stage (hearth_stage_t *st, hearth_error_t *err)
{
    if (shuffle_partitions (st) && !st->held /* a copy has its table */
        && !(st->maps = calloc (st->ntasks, sizeof *st->maps)))
        return hearth_errprintf (err,
                                 "out of memory for the map outputs of "
                                 "stage %s",
                                 st->name);
    if (!st->output_dir)
        return 0;
    if (shuffle_absolute_output (st, err) < 0)
        return -1;
    /* a resumed stage's earlier driver left part files there */
    if (!st->resumed && shuffle_holds_output (st->output_dir))
        return hearth_errprintf (err,
                                 "stage %s: the output directory %s already "
                                 "holds an output (part files or _SUCCESS); "
                                 "remove it or choose another",
                                 st->name, st->output_dir);
    char tmp[PATH_MAX];
    hearth_error_t merr;
    if ((size_t) snprintf (tmp, sizeof tmp, "%s/_temporary", st->output_dir)
            >= sizeof tmp
        || hearth_mkdir_p (tmp, 0755, &merr) < 0)
        return hearth_errprintf (
            err,
            "stage %s: cannot make the output "
            "directory %s: %s",
            st->name, st->output_dir,
            strlen (tmp) < sizeof tmp - 1 ? merr.text : "path too long");
    /* the output directory may be shared: a link left at _temporary
       would take the tasks' outputs elsewhere (libcore/safefile.h) */
    int fd = hearth_dir_open_at (AT_FDCWD, tmp, 0);
    if (fd < 0)
        return hearth_errprintf (err, "stage %s: cannot use %s: %s (remove it)",
                                 st->name, tmp, hearth_file_why (errno));
    close (fd);
    /* last: parts says that _temporary is the stage's, to remove at its
       job's end (shuffle_job_ended) */
    if (!(st->parts = calloc (st->ntasks, sizeof *st->parts)))
        return hearth_errprintf (err,
                                 "out of memory for the part files of "
                                 "stage %s",
                                 st->name);
    return 0;
}

bool
shuffle_same_output (const hearth_stage_t *a, const hearth_stage_t *b)
{
    struct stat sa, sb;
    return a->output_dir && b->output_dir && stat (a->output_dir, &sa) == 0
           && stat (b->output_dir, &sb) == 0 && sa.st_dev == sb.st_dev
           && sa.st_ino == sb.st_ino;
}

/* ---- launching ----------------------------------------------------------- */

bool
shuffle_has_roles (const hearth_stage_t *st)
{
    return shuffle_partitions (st) || st->output_dir || st->input;
}

bool
shuffle_packs_whole (const hearth_stage_t *st)
{
    return st->read_whole && st->inline_max && !st->input && !st->output_dir;
}

static void
s_temp_path (const hearth_stage_t *st, uint64_t index, int attempt, char *buf,
             size_t size)
{
    snprintf (buf, size, "%s/_temporary/part-%05" PRIu64 ".%d", st->output_dir,
              index, attempt);
}

/* Task index's part file, once committed. */
static void
s_final_path (const hearth_stage_t *st, uint64_t index, char *buf, size_t size)
{
    char name[32];
    shuffle_part_name (index, name, sizeof name);
    snprintf (buf, size, "%s/%s", st->output_dir, name);
}

void
shuffle_part_name (uint64_t index, char *buf, size_t size)
{
    snprintf (buf, size, "part-%05" PRIu64, index);
}

static void
s_put_le (unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

/* The partition task index of st reads from its input stage: its own,
   or the one partition of a stage read whole (every task reads it). */
static uint32_t
s_partition_read (const hearth_stage_t *st, uint64_t index)
{
    return st->input->partitions ? (uint32_t) index : 0;
}

/* The index of frame in msg when msg already shares it, or -1. */
static int
s_shared_index (const hearth_msg_t *msg, const zframe_t *frame)
{
    for (size_t i = 0; msg->borrowed && i < msg->nframes; i++)
        if (msg->borrowed[i] && msg->frames[i] == frame)
            return (int) i;
    return -1;
}

/* The blocks the driver keeps of in, in the reduce role: its "inline"
   frame, shared by every reader (by reference), and once in a message
   however many of its tasks read it (a batch's bound does not count
   shared frames, and the executor holds each frame it receives).  0 or
   -1. */
static int
s_render_kept (hearth_msg_t *msg, cJSON *reduce, hearth_stage_t *in)
{
    bool failed;
    zframe_t *kept = inlineout_frame (in, &failed);
    if (!kept)
        return failed ? -1 : 0;
    int f = s_shared_index (msg, kept);
    if (f < 0)
        f = hearth_msg_add_shared (msg, kept);
    return f >= 0 && cJSON_AddNumberToObject (reduce, "inline", f) ? 0 : -1;
}

/* A reader of a stage whose outputs the driver keeps, all of them: its
   task input, those outputs in task order (one frame, shared as the
   reduce role's "inline" is), as a task input was before issue 42: no
   framing, no per-block records, read by a function where it lies.
   0 or -1. */
static int
s_render_input (hearth_msg_t *msg, cJSON *t, hearth_stage_t *in)
{
    bool failed;
    zframe_t *input = inlineout_input (in, &failed);
    if (!input)
        return failed ? -1 : 0; /* nothing kept: an empty input */
    int f = s_shared_index (msg, input);
    if (f < 0)
        f = hearth_msg_add_shared (msg, input);
    return f >= 0 && cJSON_AddNumberToObject (t, "input", f) ? 0 : -1;
}

/* The "reduce" role of task index of st: the servers its parent's
   outputs are on, and one entry per map task; or, when the driver keeps
   every one of them, the task's input.  Returns 0, 1 when a map output
   is missing, -1 on no memory. */
static int
s_render_reduce (hearth_msg_t *msg, cJSON *t, const shuffle_servers_t *servers,
                 const hearth_stage_t *st, uint64_t index)
{
    hearth_stage_t *in = st->input; /* its kept outputs cached */
    if (inlineout_all_kept (in))
        return s_render_input (msg, t, in);
    uint32_t partition = s_partition_read (st, index);
    uint32_t *local =
        malloc ((shuffle_servers_count (servers) + 1) * sizeof *local);
    zframe_t *frame = zframe_new (NULL, in->ntasks * HEARTH_BLOCK_RECORD);
    cJSON *reduce = cJSON_AddObjectToObject (t, "reduce");
    cJSON *list = reduce ? cJSON_AddArrayToObject (reduce, "servers") : NULL;
    int rc = local && frame && list ? 0 : -1;
    for (size_t i = 0; local && i < shuffle_servers_count (servers); i++)
        local[i] = SHUFFLE_NO_SERVER;
    unsigned char *p = frame ? zframe_data (frame) : NULL;
    uint32_t nlocal = 0;
    for (uint64_t m = 0; rc == 0 && m < in->ntasks;
         m++, p += HEARTH_BLOCK_RECORD) {
        const mapout_t *mo = &in->maps[m];
        if (!mo->sizes) {
            rc = 1;
            break;
        }
        uint32_t sid = mo->server;
        if (sid != SHUFFLE_NO_SERVER && sid != SHUFFLE_KEPT
            && local[sid] == SHUFFLE_NO_SERVER) {
            cJSON *s = cJSON_CreateObject ();
            cJSON_AddItemToArray (list, s);
            cJSON_AddStringToObject (s, "url",
                                     shuffle_servers_url (servers, sid));
            if (shuffle_servers_key (servers, sid))
                cJSON_AddStringToObject (s, "key",
                                         shuffle_servers_key (servers, sid));
            local[sid] = nlocal++;
        }
        s_put_le (p,
                  sid == SHUFFLE_NO_SERVER || sid == SHUFFLE_KEPT ? sid
                                                                  : local[sid],
                  4);
        s_put_le (p + 4, mo->attempt, 4);
        s_put_le (p + 8, mo->sizes[partition], 8);
    }
    if (rc == 0) {
        cJSON_AddNumberToObject (reduce, "shuffle", in->shuffle_id);
        cJSON_AddNumberToObject (reduce, "partition", partition);
        cJSON_AddBoolToObject (reduce, "sort", in->sort);
        if (in->keep_in_memory) /* executor/partcache.h */
            cJSON_AddBoolToObject (reduce, "cache", true);
        int f = hearth_msg_add_frame (msg, &frame);
        rc = f >= 0 && cJSON_AddNumberToObject (reduce, "blocks", f) ? 0 : -1;
    }
    if (rc == 0)
        rc = s_render_kept (msg, reduce, in);
    zframe_destroy (&frame);
    free (local);
    return rc;
}

int
shuffle_render (hearth_msg_t *msg, cJSON *t, const shuffle_servers_t *servers,
                const hearth_stage_t *st, uint64_t index, int attempt)
{
    if (st->input) {
        int rc = s_render_reduce (msg, t, servers, st, index);
        if (rc != 0)
            return rc;
    }
    if (shuffle_partitions (st)) {
        cJSON *map = cJSON_AddObjectToObject (t, "map");
        if (!map || !cJSON_AddNumberToObject (map, "shuffle", st->shuffle_id)
            || !cJSON_AddNumberToObject (map, "partitions",
                                         shuffle_partitions (st))
            || !cJSON_AddBoolToObject (map, "sort", st->sort)
            || (!st->partitions && !cJSON_AddBoolToObject (map, "whole", true))
            || (st->inline_max
                && !cJSON_AddNumberToObject (map, "inline_max", st->inline_max))
            /* its worker counts it against --cache-disk (persist.h) */
            || ((st->persist != HEARTH_PERSIST_NONE
                 || (st->held && !st->resumed))
                && !cJSON_AddBoolToObject (map, "persist", true)))
            return -1;
    }
    if (st->output_dir) {
        char path[PATH_MAX], final[PATH_MAX];
        s_temp_path (st, index, attempt, path, sizeof path);
        s_final_path (st, index, final, sizeof final);
        if (!cJSON_AddStringToObject (t, "output", path)
            || !cJSON_AddStringToObject (t, "commit_to", final))
            return -1;
    }
    return 0;
}

/* ---- status updates ------------------------------------------------------ */

/* The update's map_sizes frame when it holds R sizes, else NULL. */
static zframe_t *
s_sizes_frame (const hearth_stage_t *st, hearth_msg_t *msg, const cJSON *json)
{
    zframe_t *f =
        json ? hearth_msg_frame (msg, hearth_json_int (json, "map_sizes", -1))
             : NULL;
    return f && zframe_size (f) == (size_t) shuffle_partitions (st) * 8 ? f
                                                                        : NULL;
}

/* The update's map_block frame (the output the driver keeps), or NULL. */
static zframe_t *
s_block_frame (hearth_msg_t *msg, const cJSON *json)
{
    return json
               ? hearth_msg_frame (msg, hearth_json_int (json, "map_block", -1))
               : NULL;
}

hearth_ts_state_t
shuffle_update_state (const hearth_stage_t *st, hearth_msg_t *msg,
                      const cJSON *json, hearth_ts_state_t state,
                      const char **error)
{
    if (state == HEARTH_TS_FINISHED && shuffle_partitions (st)
        && !s_sizes_frame (st, msg, json)) {
        *error = "the executor sent no valid partition sizes (map_sizes) for "
                 "a map task";
        return HEARTH_TS_FAILED;
    }
    zframe_t *block =
        state == HEARTH_TS_FINISHED ? s_block_frame (msg, json) : NULL;
    if (block && !inlineout_acceptable (st, zframe_size (block))) {
        *error = INLINEOUT_REFUSED;
        return HEARTH_TS_FAILED;
    }
    if (state == HEARTH_TS_FAILED && json
        && cJSON_GetObjectItemCaseSensitive (json, "fetch_failed"))
        return HEARTH_TS_FETCH_FAILED;
    return state;
}

static uint64_t
s_get_le64 (const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int
shuffle_accepted (hearth_stage_t *st, uint64_t index, int attempt,
                  uint32_t server, const char *host, hearth_msg_t *msg,
                  const cJSON *json, hearth_error_t *err)
{
    uint32_t partitions = shuffle_partitions (st);
    if (partitions) {
        zframe_t *f = s_sizes_frame (st, msg, json);
        mapout_t *mo = &st->maps[index];
        uint64_t *sizes = malloc ((size_t) partitions * sizeof *sizes);
        if (!f || !sizes) {
            free (sizes);
            return hearth_errprintf (err, "out of memory for a map output");
        }
        const unsigned char *p = zframe_data (f);
        for (uint32_t i = 0; i < partitions; i++)
            sizes[i] = s_get_le64 (p + 8 * (size_t) i);
        zframe_t *block = s_block_frame (msg, json);
        inlineout_drop (st, index);
        *mo = (mapout_t){sizes, server, (uint32_t) attempt, false, 0};
        if (block
            && inlineout_keep (st, index, (uint32_t) attempt,
                               zframe_data (block), zframe_size (block))
                   < 0)
            return hearth_errprintf (err, "out of memory for a map output");
    }
    if (st->output_dir) {
        /* its executor committed it where it ran (ASK_COMMIT): noted for
           the manifest */
        hearth_part_file_t *f = &st->parts[index];
        char name[32];
        shuffle_part_name (index, name, sizeof name);
        free (f->name); /* named once committed (record.h reads it) */
        f->name = strdup (name);
        free (f->host);
        f->host = host && *host ? strdup (host) : NULL;
        f->bytes = (uint64_t) hearth_json_int (json, "output_bytes", 0);
        if ((host && *host && !f->host) || !f->name)
            return hearth_errprintf (err, "out of memory for a part file");
    }
    return 0;
}

void
shuffle_discard (const hearth_stage_t *st, uint64_t index, int attempt)
{
    if (!st->output_dir)
        return;
    char tmp[PATH_MAX];
    s_temp_path (st, index, attempt, tmp, sizeof tmp);
    hearth_file_unlink_below (tmp); /* never through a link at _temporary */
}

/* The map stage of shuffle id id in job, or NULL. */
static hearth_stage_t *
s_map_stage (hearth_job_t *job, uint32_t id)
{
    for (size_t i = 0; i < job->nstages; i++)
        if (job->stages[i]->shuffle_id == id && job->stages[i]->maps)
            return job->stages[i];
    return NULL;
}

/* Forget map output m of ms and have it run again. */
static void
s_lose (hearth_taskset_t *ts, hearth_stage_t *ms, uint64_t m)
{
    inlineout_drop (ms, m);
    if (ms->ev_ended) { /* a stage that had ended runs again: its events */
        ms->ev_started = ms->ev_ended = false;
        ms->ev_attempt++;
        ms->ev_rerun = 0;
    }
    ms->ev_rerun++;
    if (hearth_taskset_resubmit (ts, ms->uid, m) < 0)
        log_error ("stage %s, task %" PRIu64 ": cannot run it again: %s",
                   ms->name, m, strerror (errno));
}

/* Drop every output of server in the job; returns how many. */
static size_t
s_lose_server (hearth_taskset_t *ts, hearth_job_t *job, uint32_t server)
{
    size_t n = 0;
    for (size_t k = 0; k < job->nstages; k++) {
        hearth_stage_t *ms = job->stages[k];
        for (uint64_t m = 0; ms->maps && m < ms->ntasks; m++)
            if (ms->maps[m].sizes && ms->maps[m].server == server) {
                s_lose (ts, ms, m);
                n++;
            }
    }
    return n;
}

int
shuffle_fetch_failed (hearth_taskset_t *ts, shuffle_servers_t *servers,
                      hearth_stage_t *st, const cJSON *json, const char *error,
                      hearth_error_t *err)
{
    const cJSON *ff = cJSON_GetObjectItemCaseSensitive (json, "fetch_failed");
    hearth_stage_t *ms =
        s_map_stage (st->job, (uint32_t) hearth_json_int (ff, "shuffle", -1));
    uint64_t m = (uint64_t) hearth_json_int (ff, "map", -1);
    uint32_t attempt = (uint32_t) hearth_json_int (ff, "attempt", -1);
    const char *url = hearth_json_str (ff, "url");
    size_t rounds = hearth_taskset_fetch_failures (ts, st->uid);
    if (rounds >= s_max_fetch_rounds)
        return hearth_errprintf (
            err,
            "stage %s lost its input %zu times in a row; last: map output "
            "%" PRIu64 " of stage %s on %s: %s",
            st->name, rounds, m, ms ? ms->name : "?", url ? url : "this node",
            error ? error : "no reason given");
    if (!ms || m >= ms->ntasks || !ms->maps[m].sizes
        || ms->maps[m].attempt != attempt)
        return 0; /* lost and re-run already: the task just waits */
    uint32_t server = ms->maps[m].server;
    size_t n = 1;
    if (server == SHUFFLE_NO_SERVER
        || shuffle_servers_find (servers, url) != server)
        s_lose (ts, ms, m);
    else
        n = s_lose_server (ts, st->job, server);
    log_warn ("stage %s: map output %" PRIu64 " of stage %s could not be "
              "fetched from %s (%s): %zu map output%s lost, run again",
              st->name, m, ms->name, url ? url : "this node",
              error ? error : "no reason given", n, n == 1 ? "" : "s");
    return 0;
}

/* Which tasks of the reduce stage st (its input partitioned or read
   whole) read a block of some bytes from server: a new array of
   st->ntasks flags (caller frees), or NULL when none does (or no memory,
   logged). */
static bool *
s_readers (const hearth_stage_t *st, uint32_t server)
{
    const hearth_stage_t *ms = st->input;
    bool *reads = NULL, any = false;
    for (uint64_t m = 0; m < ms->ntasks; m++) {
        const mapout_t *mo = &ms->maps[m];
        if (!mo->sizes || mo->server != server)
            continue;
        if (!reads && !(reads = calloc (st->ntasks, sizeof *reads))) {
            log_error ("stage %s: out of memory finding the tasks that read "
                       "a lost block server: they will fail to fetch",
                       st->name);
            return NULL;
        }
        for (uint64_t p = 0; p < st->ntasks; p++)
            if (mo->sizes[s_partition_read (st, p)] > 0)
                any = reads[p] = true;
    }
    if (!any)
        free (reads);
    return any ? reads : NULL;
}

/* hearth_taskset_refetch's question: does task index read the server? */
static bool
s_reads (void *arg, uint64_t index)
{
    return ((const bool *) arg)[index];
}

/* Kill the attempts of st that read the server lost (reads: s_readers),
   opening a round of its fetch failures.  Returns how many, or -1 with
   err when st has lost its input too many times in a row. */
static int
s_kill_readers (hearth_taskset_t *ts, const hearth_stage_t *st, bool *reads,
                const char *url, const char *why, hearth_error_t *err)
{
    int killed = hearth_taskset_refetch (ts, st->uid, s_reads, reads);
    size_t rounds =
        killed > 0 ? hearth_taskset_fetch_failures (ts, st->uid) : 0;
    if (rounds >= s_max_fetch_rounds)
        return hearth_errprintf (
            err,
            "stage %s lost its input %zu times in a row; last: the map "
            "outputs of stage %s on %s: %s",
            st->name, rounds, st->input->name, url, why);
    return killed < 0 ? 0 : killed;
}

int
shuffle_server_lost (hearth_taskset_t *ts, const shuffle_servers_t *servers,
                     hearth_job_t *job, uint32_t server, const char *why,
                     hearth_error_t *err)
{
    if (server == SHUFFLE_NO_SERVER)
        return 0;
    bool **reads = calloc (job->nstages, sizeof *reads);
    if (!reads)
        return hearth_errprintf (err, "out of memory dropping the map "
                                      "outputs of a lost worker");
    /* who reads what, before the outputs (their sizes) go */
    for (size_t k = 0; k < job->nstages; k++) {
        const hearth_stage_t *st = job->stages[k];
        if (st->input && st->input->maps)
            reads[k] = s_readers (st, server);
    }
    size_t lost = s_lose_server (ts, job, server);
    const char *url = shuffle_servers_url (servers, server);
    int rc = 0, killed = 0;
    for (size_t k = 0; k < job->nstages; k++) {
        int n = reads[k] && rc == 0 ? s_kill_readers (ts, job->stages[k],
                                                      reads[k], url, why, err)
                                    : 0;
        if (n < 0)
            rc = -1;
        else
            killed += n;
        free (reads[k]);
    }
    free (reads);
    if (rc == 0 && (lost || killed))
        log_warn ("job %s: the block server %s is gone (%s): %zu map "
                  "output%s lost, run again; %d reduce attempt%s reading "
                  "them killed, to run once they are back",
                  job->name, url, why, lost, lost == 1 ? "" : "s", killed,
                  killed == 1 ? "" : "s");
    return rc;
}

/* ---- ends ---------------------------------------------------------------- */

void
shuffle_stage_done (hearth_stage_t *st)
{
    if (!st->output_dir)
        return;
    char path[PATH_MAX];
    hearth_error_t err;
    for (uint64_t i = 0; i < st->ntasks; i++) {
        s_final_path (st, i, path, sizeof path);
        free (st->parts[i].name);
        st->parts[i].name = strdup (strrchr (path, '/') + 1);
    }
    if (hearth_manifest_write (st->output_dir, st->parts, (size_t) st->ntasks,
                               &err)
        < 0)
        log_warn ("stage %s: %s", st->name, err.text);
    snprintf (path, sizeof path, "%s/_temporary", st->output_dir);
    hearth_rm_tree (path);
}

void
shuffle_job_ended (hearth_job_t *job)
{
    char path[PATH_MAX];
    for (size_t i = 0; i < job->nstages; i++)
        if (job->stages[i]->output_dir && job->stages[i]->parts) {
            /* prepared: the _temporary is its own (not that of another
               job's stage it was refused for) */
            snprintf (path, sizeof path, "%s/_temporary",
                      job->stages[i]->output_dir);
            hearth_rm_tree (path);
        }
}
