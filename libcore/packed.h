/*  packed.h - the packed form of task launches and status updates.

    A LAUNCH_TASKS or STATUS_UPDATE may carry its tasks or its updates in
    one binary frame, named by the body's `packed` field,
    instead of one JSON object each (docs/protocol.md, "Packed tasks and
    updates").  The frame is a header, 4 tag bytes ("HTK1" for tasks,
    "HUP1" for updates) and a little-endian u32 record count, then the
    records, each padded with zero bytes to a multiple of 8:

      task      u64 tid, u32 attempt, i32 input (frame index, -1: none),
                u64 timeout_ms, u16 fn_len, u16 lib_len, u32 arg_len,
                u16 argc, u16 envc, u32 strings_len, then fn, lib and arg,
                each followed by a NUL byte, then (a command) argc argv
                strings and envc "NAME=VALUE" strings, each NUL-terminated:
                a function has fn, a command argv, never both
      update    u64 tid, u32 attempt, u8 state (index in
                hearth_task_states), u8 flags (PACKED_*: exit status,
                signal, truncated, run time, permanent), u16 error_len,
                i32 exit_status, i32 signal, u64 run_us, i32 result
                (frame index, -1: inline or none), u32 result_len (inline
                bytes), then the error and a NUL byte, then the inline
                result bytes

    The limits are the JSON fields' (commands.c): a frame that breaks one
    fails the whole message with bad_field, so that a decoded message's
    packed records are valid and readers need no checks of their own.

    Packing avoids a JSON tree, a number printed and parsed, and a heap
    block per task: on the hot path of no-op tasks it was most of the
    driver's and the executor's instructions (docs/performance.md).
*/
#ifndef HEARTH_PACKED_H
#define HEARTH_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/error.h"

#define HEARTH_PACKED_TASKS "HTK1"
#define HEARTH_PACKED_UPDATES "HUP1"

/* Flags of a packed update. */
#define HEARTH_PACKED_EXIT 0x01      /* exit_status is set */
#define HEARTH_PACKED_SIGNAL 0x02    /* signal is set */
#define HEARTH_PACKED_TRUNCATED 0x04 /* the result was truncated */
#define HEARTH_PACKED_RUN_US 0x08    /* run_us is set */
#define HEARTH_PACKED_PERMANENT 0x10 /* a failure a retry cannot change */
#define HEARTH_PACKED_MAP_BLOCK                                                \
    0x20 /* FINISHED of a task whose map output                                \
            read whole the driver keeps: the                                   \
            result is that output (maybe empty) */

/* One task: a function (fn set, argc 0) or a command (argc > 0, fn
   NULL).  From a reader, the strings are borrowed from the frame
   (NUL-terminated); lib is NULL when the task names none. */
typedef struct {
    uint64_t tid;        /* task id */
    int attempt;         /* attempt number */
    int input;           /* binary frame index of its input, or -1 */
    int64_t timeout_ms;  /* 0: none */
    const char *fn;      /* function name, 1..255 bytes, or NULL */
    const char *lib;     /* library name, or NULL */
    const char *arg;     /* argument, 0..65536 bytes ("" when none) */
    int argc;            /* command: argv strings, 1..4096; else 0 */
    int envc;            /* command: "NAME=VALUE" strings, 0..1024 */
    const char *strings; /* command: argc then envc strings, each with its
                            NUL (argv 0..65536 bytes, argv[0] at least 1;
                            values 0..65536) */
    size_t strings_len;  /* bytes at strings */
} hearth_packed_task_t;

/* One status update.  From a reader, error and an inline result are
   borrowed from the frame. */
typedef struct {
    uint64_t tid;       /* task id */
    int attempt;        /* attempt number */
    int state;          /* index in hearth_task_states */
    unsigned flags;     /* HEARTH_PACKED_* */
    int exit_status;    /* with HEARTH_PACKED_EXIT */
    int signal;         /* with HEARTH_PACKED_SIGNAL */
    int64_t run_us;     /* with HEARTH_PACKED_RUN_US */
    const char *error;  /* why it failed, or NULL */
    int result_frame;   /* the result is this whole binary frame, or -1 */
    const void *result; /* else the inline result bytes (or NULL) */
    size_t result_len;  /* bytes at result */
} hearth_packed_update_t;

/* A growing frame of records.  Zero-initialise, then pack records; take
   the frame; reuse.  Not thread-safe; owns its buffer. */
typedef struct {
    uint8_t *data;  /* header and records */
    size_t len;     /* bytes used */
    size_t alloc;   /* bytes allocated */
    uint32_t count; /* records packed */
} hearth_packer_t;

/* Append a task (tag HTK1) or an update (HUP1; a non-NULL result with
   result_frame -1 is copied inline).  Mixing kinds in one packer is a
   programming error.  Returns 0, or -1 with errno ENOMEM or EINVAL (a
   field out of its limits: a caller's bug, nothing was appended). */
int hearth_packer_add_task (hearth_packer_t *self,
                            const hearth_packed_task_t *task);
int hearth_packer_add_update (hearth_packer_t *self,
                              const hearth_packed_update_t *update);

/* Records packed so far; bytes they take. */
uint32_t hearth_packer_count (const hearth_packer_t *self);
size_t hearth_packer_size (const hearth_packer_t *self);

/* A new frame holding the records (a copy), or NULL on no memory; the
   packer is emptied (keeping its buffer) either way. */
zframe_t *hearth_packer_frame (hearth_packer_t *self);

/* Free the packer's buffer; it may be used again. */
void hearth_packer_release (hearth_packer_t *self);

/* Reading a frame of records that the decoder has checked. */
typedef struct {
    const uint8_t *next; /* next record */
    const uint8_t *end;  /* end of the frame */
    uint32_t left;       /* records not read yet */
    uint32_t index;      /* records read (for error texts) */
} hearth_unpacker_t;

/* Start reading frame, which must carry tag.  Returns 0, or -1 with err
   (code bad_field) when it does not start as it should. */
int hearth_unpacker_init (hearth_unpacker_t *self, zframe_t *frame,
                          const char *tag, hearth_error_t *err);

/* The next record.  Returns 1 and fills the record, 0 at the end, or -1
   with err (code bad_field) for a record that breaks the format or a
   limit; nframes bounds frame indices. */
int hearth_unpack_task (hearth_unpacker_t *self, size_t nframes,
                        hearth_packed_task_t *task, hearth_error_t *err);
int hearth_unpack_update (hearth_unpacker_t *self, size_t nframes,
                          hearth_packed_update_t *update, hearth_error_t *err);

/* Check every record of a packed frame (the decoder's check of the
   `packed` field).  Returns 0 or -1 with err. */
int hearth_packed_check (zframe_t *frame, const char *tag, size_t nframes,
                         hearth_error_t *err);

#endif
