/*  jobstore.h - a job file's simple tasks, kept out of its JSON tree.

    Nearly every task of a big job file is {"fn": F, "arg": A} or
    {"cmd": [ARGV...]}.  As cJSON objects they cost about seven
    allocations and 370 bytes each, and the whole tree had to exist before
    the first task started (docs/performance.md, "Job files beside the C
    API").  The streaming reader (jobstream.h) keeps such a task as its
    strings in one buffer, the store, and leaves in the tree's "tasks"
    array a placeholder node that names its record: the tasks keep their
    order and their index, so every check, message and build that walks
    the array still sees each task where the file has it.

    One placeholder stands for a run of consecutive simple tasks (most
    files are one run a stage), so the tree has a node per run, not per
    task: jobtask_span() says how many tasks a node of "tasks" is, and
    code that counts a stage's tasks adds the spans.  A placeholder is a
    cJSON node of type cJSON_Raw with no valuestring (cJSON's parser never
    makes one), its first record's offset in valuedouble and its count in
    valueint; cJSON_Delete frees it as any node.  A record is the task's
    kind and its strings, NUL-terminated, one after the other.
*/
#ifndef HEARTH_JOBFILE_JOBSTORE_H
#define HEARTH_JOBFILE_JOBSTORE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

typedef struct jobstore jobstore_t;

/* What a simple task is. */
typedef enum {
    JOBTASK_FN,     /* "fn" alone: strings fn */
    JOBTASK_FN_ARG, /* "fn" and "arg": strings fn, arg (in that order) */
    JOBTASK_CMD,    /* "cmd": the argv strings */
} jobtask_kind_t;

/* One simple task, as the store holds it (pointers into the store, valid
   until it changes). */
typedef struct {
    jobtask_kind_t kind; /* what it is */
    size_t n;            /* its strings */
    const char *first;   /* the first; jobtask_next() for the others */
} jobtask_view_t;

/* An empty store; NULL on no memory. */
jobstore_t *jobstore_new (void);
/* Free it (accepts NULL; nulls *self_p).  The placeholders must not be
   read afterwards. */
void jobstore_destroy (jobstore_t **self_p);

/* Append a task of kind with its n strings (lens[i] bytes each, without
   NUL; a string holding a NUL is cut there, as cJSON's are) to the array
   tasks: into its last node when that is the run the store appended to
   last, else as a new placeholder.  Returns 0, or -1 on no memory. */
int jobstore_append (jobstore_t *self, cJSON *tasks, jobtask_kind_t kind,
                     const char *const *strs, const size_t *lens, size_t n);
/* The same for n strings already NUL-terminated one after another in
   block (bytes long in all, each cut at its first NUL): one copy, the
   stream's way (jobstream.c). */
int jobstore_append_block (jobstore_t *self, cJSON *tasks, jobtask_kind_t kind,
                           const char *block, size_t bytes, size_t n);

/* The same for n strings, lens[i] bytes each, that hold no NUL, braces
   saying whether one holds a '{' (the caller has looked): no look here
   (jobfast.c). */
int jobstore_append_plain (jobstore_t *self, cJSON *tasks, jobtask_kind_t kind,
                           const char *const *strs, const size_t *lens,
                           size_t n, bool braces);

/* A placeholder's flag, in cJSON's type above the bits cJSON reads: some
   string of its run holds a '{', a placeholder jobparams.c may fill.
   Without it the run is not read again before it is built. */
enum { JOBTASK_BRACES = 1 << 12 };

/* Whether node is a placeholder of a store. */
static inline bool
jobtask_is_stored (const cJSON *node)
{
    return node && (node->type & 0xff) == cJSON_Raw && !node->valuestring;
}

/* How many tasks a node of a "tasks" array is: a placeholder's run, or
   1. */
static inline size_t
jobtask_span (const cJSON *node)
{
    return jobtask_is_stored (node) ? (size_t) node->valueint : 1;
}

/* Whether a placeholder's run may hold a placeholder to fill. */
static inline bool
jobtask_has_braces (const cJSON *node)
{
    return (node->type & JOBTASK_BRACES) != 0;
}

/* Where a placeholder's run starts, for jobstore_view. */
static inline size_t
jobtask_first (const cJSON *node)
{
    return (size_t) node->valuedouble;
}

/* The record at *at (a run's first, or the one after the last viewed),
   and *at moved past it. */
jobtask_view_t jobstore_view (const jobstore_t *self, size_t *at);

/* The string after s in a view. */
static inline const char *
jobtask_next (const char *s)
{
    while (*s)
        s++;
    return s + 1;
}

/* Rewriting a run (its strings filled): jobstore_end() is where the new
   run starts; copy or put each of its records in order, then
   jobstore_move() the placeholder there.  The old records stay unused.
   Both return 0, or -1 on no memory; offsets stay valid, pointers into
   the store do not. */
size_t jobstore_end (const jobstore_t *self);
int jobstore_copy (jobstore_t *self, size_t at);
int jobstore_put (jobstore_t *self, jobtask_kind_t kind,
                  const char *const *strs, size_t n);
void jobstore_move (cJSON *node, size_t first);

/* A placeholder's tasks as the cJSON objects the file wrote (for tests
   and messages): a new array, NULL on no memory. */
cJSON *jobstore_expand (const jobstore_t *self, const cJSON *node);

/* Bytes the store holds (its records). */
size_t jobstore_bytes (const jobstore_t *self);

/* The records themselves (NULL while there are none) and, in *len, their
   bytes: a job's groups may point into them (job_lend_strings). */
char *jobstore_data (const jobstore_t *self, size_t *len);
/* Let go of the records without freeing them (their new owner frees
   them); the store is empty again and its placeholders must not be
   read. */
void jobstore_release (jobstore_t *self);

#endif
