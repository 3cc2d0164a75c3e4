/*  proto.h - the Hearth wire protocol: commands, messages and their codec.

    A message on the wire is a ZeroMQ multipart message (docs/protocol.md):

        frame 0   protocol tag and version, "HEARTH/1"
        frame 1   command name, upper case ("REGISTER_WORKER")
        frame 2   body: one JSON object
        frame 3…  binary frames, referred to by index (0 = frame 3) from the
                  body; payloads and files never travel inside JSON strings

    ROUTER sockets see the peer's routing id in front of frame 0.

    Decoding checks the version, the command, the body's JSON and nesting
    depth, and the body against the command's schema (commands.c): a
    decoded hearth_msg_t is valid, and handlers read its fields without
    re-checking their types.  Encoding checks the schema too, so that a
    sender's bug is caught at the sender.
*/
#ifndef HEARTH_PROTO_H
#define HEARTH_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/error.h"
#include "libcore/schema.h"

#define HEARTH_PROTO_TAG "HEARTH/1"
#define HEARTH_PROTO_PREFIX "HEARTH/"

/* Hard limits of the decoder; sockets may set a lower ZMQ_MAXMSGSIZE. */
#define HEARTH_MAX_BODY_BYTES (64 * 1024 * 1024)
#define HEARTH_MAX_DEPTH 32
#define HEARTH_MAX_FRAMES (1024 * 1024)
/* Largest piece of a shuffle block one FETCH_BLOCK asks for. */
#define HEARTH_FETCH_MAX_BYTES (16 * 1024 * 1024)
/* Largest piece of a shipped file or library one FETCH_FILE asks for. */
#define HEARTH_FILE_CHUNK_MAX (16 * 1024 * 1024)
/* The chunk of a shipped file that executors fetch and that a node
   holding part of a file serves whole or not at all: chunk C is the
   bytes from C x this (the last one shorter). */
#define HEARTH_FILE_CHUNK_BYTES (4 * 1024 * 1024)
/* Holders of a chunk one FILE_HOLDERS names, at most. */
#define HEARTH_FILE_HOLDERS_MAX 4
/* A reduce task's "blocks" frame (LAUNCH_TASKS): one record per map task,
   u32 server index, u32 attempt, u64 stored length, little-endian. */
#define HEARTH_BLOCK_RECORD 16
/* The server index of a map output on the reducer's node with no block
   server (local[N]). */
#define HEARTH_BLOCK_LOCAL 0xffffffffu
/* The server index of a map output the driver keeps (the reduce role's
   "inline" frame holds its stored bytes, after those of the earlier
   such blocks). */
#define HEARTH_BLOCK_INLINE 0xfffffffeu
/* Largest map output a driver may keep (the map role's "inline_max"). */
#define HEARTH_INLINE_BLOCK_MAX (1024 * 1024)
/* APPLICATION_PROGRESS: at most this many stages, names of at most
   HEARTH_PROGRESS_NAME_MAX bytes (the driver cuts longer ones). */
#define HEARTH_PROGRESS_STAGES 16
#define HEARTH_PROGRESS_NAME_MAX 255
/* One task of LAUNCH_TASKS, JSON or packed alike (commands.c, packed.c,
   docs/protocol.md "LAUNCH_TASKS"): a command has 1..ARGV_MAX argv
   strings of 0..ARG_MAX bytes (argv[0] at least 1) and 0..ENV_MAX
   environment entries, names of 1..ENV_NAME_MAX bytes, values of
   0..ARG_MAX; a function has a name of 1..FN_MAX bytes and an argument
   of 0..ARG_MAX bytes in the body, or of up to ARG_FRAME_MAX in a
   binary frame of its own ("arg_frame"). */
#define HEARTH_TASK_ARG_MAX 65536
#define HEARTH_TASK_ARGV_MAX 4096
#define HEARTH_TASK_ENV_MAX 1024
#define HEARTH_TASK_ENV_NAME_MAX 255
#define HEARTH_TASK_FN_MAX 255
#define HEARTH_TASK_ARG_FRAME_MAX (64 * 1024 * 1024)
/* A task's attempt numbers: 0..ATTEMPT_MAX. */
#define HEARTH_TASK_ATTEMPT_MAX 1000

/* Every command of the protocol, in the order of docs/protocol.md. */
#define HEARTH_COMMANDS(X)                                                     \
    X (ERROR)                                                                  \
    X (HEARTBEAT)                                                              \
    X (REGISTER_WORKER)                                                        \
    X (REGISTERED_WORKER)                                                      \
    X (REGISTER_WORKER_FAILED)                                                 \
    X (RECONNECT_WORKER)                                                       \
    X (LAUNCH_EXECUTOR)                                                        \
    X (KILL_EXECUTOR)                                                          \
    X (EXECUTOR_STATE_CHANGED)                                                 \
    X (LAUNCH_DRIVER)                                                          \
    X (KILL_DRIVER)                                                            \
    X (DRIVER_STATE_CHANGED)                                                   \
    X (DRIVER_APPLICATION)                                                     \
    X (REGISTER_APPLICATION)                                                   \
    X (REGISTERED_APPLICATION)                                                 \
    X (RECONNECT_APPLICATION)                                                  \
    X (EXECUTOR_ADDED)                                                         \
    X (EXECUTOR_UPDATED)                                                       \
    X (APPLICATION_REMOVED)                                                    \
    X (UNREGISTER_APPLICATION)                                                 \
    X (SUBMIT_DRIVER)                                                          \
    X (SUBMIT_DRIVER_RESPONSE)                                                 \
    X (DRIVER_STATUS)                                                          \
    X (DRIVER_STATUS_RESPONSE)                                                 \
    X (KILL_DRIVER_RESPONSE)                                                   \
    X (DRIVER_LOG)                                                             \
    X (DRIVER_LOG_RESPONSE)                                                    \
    X (KILL_APPLICATION)                                                       \
    X (KILL_APPLICATION_RESPONSE)                                              \
    X (MASTER_STATE)                                                           \
    X (MASTER_STATE_RESPONSE)                                                  \
    X (REGISTER_EXECUTOR)                                                      \
    X (REGISTERED_EXECUTOR)                                                    \
    X (LAUNCH_TASKS)                                                           \
    X (KILL_TASK)                                                              \
    X (STOP_EXECUTOR)                                                          \
    X (STATUS_UPDATE)                                                          \
    X (ASK_COMMIT)                                                             \
    X (COMMIT_ANSWER)                                                          \
    X (WORKER_STOPPING)                                                        \
    X (DRAIN_WORKER)                                                           \
    X (DRAIN_WORKER_RESPONSE)                                                  \
    X (RESUME_WORKER)                                                          \
    X (RESUME_WORKER_RESPONSE)                                                 \
    X (FETCH_BLOCK)                                                            \
    X (BLOCK_DATA)                                                             \
    X (APPLICATION_PROGRESS)                                                   \
    X (APPLICATION_WAITING)                                                    \
    X (REQUEST_EXECUTORS)                                                      \
    X (KILL_EXECUTORS)                                                         \
    X (WORKER_DECOMMISSIONING)                                                 \
    X (EXECUTOR_DECOMMISSIONING)                                               \
    X (DECOMMISSION_WORKER)                                                    \
    X (DECOMMISSION_WORKER_RESPONSE)                                           \
    X (DECOMMISSION)                                                           \
    X (FOLLOW_JOURNAL)                                                         \
    X (JOURNAL_DATA)                                                           \
    X (FETCH_FILE)                                                             \
    X (FILE_CHUNK)                                                             \
    X (FILE_HOLDERS)                                                           \
    X (FILE_HELD)                                                              \
    X (BROADCAST)                                                              \
    X (OUTPUTS_RECORDED)                                                       \
    X (APPLICATION_OUTPUTS)

typedef enum {
#define HEARTH_CMD_ENUM(name) HEARTH_CMD_##name,
    HEARTH_COMMANDS (HEARTH_CMD_ENUM)
#undef HEARTH_CMD_ENUM
        HEARTH_CMD_COUNT
} hearth_cmd_t;

/* State names shared by the protocol, the daemons and the docs. */
extern const char *const hearth_master_states[]; /* ALIVE RECOVERING STANDBY */
extern const char *const hearth_worker_states[]; /* ALIVE DEAD UNKNOWN
                                                    DECOMMISSIONING */
extern const char *const hearth_app_states[];    /* WAITING RUNNING ... */
extern const char *const hearth_executor_states[]; /* LAUNCHING RUNNING ... */
extern const char *const hearth_driver_states[];   /* SUBMITTED RUNNING ... */
extern const char *const hearth_task_states[];     /* PENDING LAUNCHING ... */

/* Names in hearth_task_states before its NULL: a state's index (the state
   byte of a packed update, packed.h) is below it.  A constant, so that
   packed.c checks states without reaching into the command table. */
#define HEARTH_TASK_STATES 7

/* The command's wire name, e.g. "REGISTER_WORKER"; NULL if out of range. */
const char *hearth_cmd_name (hearth_cmd_t cmd);

/* The command with that wire name, or -1. */
int hearth_cmd_lookup (const char *name, size_t len);

/* The command's body schema (never NULL for a valid cmd). */
const hearth_field_t *hearth_cmd_schema (hearth_cmd_t cmd);

/* Check body against cmd's schema and cross-field rules, with the
   message's nframes binary frames (borrowed; packed frames are checked
   record by record).  Returns 0, or -1 with err naming the field. */
int hearth_cmd_check_body (hearth_cmd_t cmd, const cJSON *body,
                           zframe_t *const *frames, size_t nframes,
                           hearth_error_t *err);

/* A decoded (or to-be-encoded) message.  It owns body and frames. */
typedef struct {
    hearth_cmd_t cmd;    /* which command */
    cJSON *body;         /* the JSON object body */
    zframe_t **frames;   /* binary frames, index 0 = wire frame 3 */
    size_t nframes;      /* number of binary frames */
    size_t frames_alloc; /* allocated slots in frames */
    bool *borrowed;      /* per frame: the caller's (hearth_msg_add_shared),
                            sent by reference, never destroyed here; NULL
                            while there is none */
} hearth_msg_t;

/* A new message with an empty body object.  NULL on allocation failure. */
hearth_msg_t *hearth_msg_new (hearth_cmd_t cmd);

/* Destroy the message and everything it owns.  Accepts NULL; nulls
 *self_p; keeps errno. */
void hearth_msg_destroy (hearth_msg_t **self_p);

/* Append a binary frame, taking ownership of *frame_p (nulled).  Returns its
   index, or -1 (the frame is destroyed) on allocation failure. */
int hearth_msg_add_frame (hearth_msg_t *self, zframe_t **frame_p);

/* Append frame without taking it: the caller keeps it, alive and
   unchanged, until the message is sent or destroyed.  Sending does not
   copy its bytes (ZeroMQ shares them by reference count, and keeps them
   until they are on the wire), so one stage input goes to any number of
   LAUNCH_TASKS as one copy in memory.  Returns its index or -1. */
int hearth_msg_add_shared (hearth_msg_t *self, zframe_t *frame);

/* Append a copy of size bytes of data as a binary frame.  Returns its index
   or -1. */
int hearth_msg_add_bytes (hearth_msg_t *self, const void *data, size_t size);

/* Binary frame i (borrowed), or NULL when out of range. */
zframe_t *hearth_msg_frame (const hearth_msg_t *self, int64_t i);

/* The leader's epoch the message carries (its body's common field
   "epoch", protocol.md section 4), 0 when it carries none: a master
   without --zookeeper, or any other peer. */
uint64_t hearth_msg_epoch (const hearth_msg_t *self);

/* Stamp the leader's epoch into the body (replacing one there); 0 removes
   it.  Returns 0, or -1 on no memory. */
int hearth_msg_set_epoch (hearth_msg_t *self, uint64_t epoch);

/* Check the message against its command's schema. Returns 0 or -1. */
int hearth_msg_check (const hearth_msg_t *self, hearth_error_t *err);

/* Encode into a multipart message (without routing id).  Consumes *self_p
   (nulled) in all cases.  NULL with err when the body breaks its schema. */
zmsg_t *hearth_msg_encode (hearth_msg_t **self_p, hearth_error_t *err);

/* Decode a multipart message (without routing id).  Consumes *zmsg_p
   (nulled).  NULL with err (code: bad_protocol, bad_version,
   unknown_command, truncated, too_large, bad_json, too_deep, bad_field,
   bad_frame) when the message is not a valid Hearth message. */
hearth_msg_t *hearth_msg_decode (zmsg_t **zmsg_p, hearth_error_t *err);

/* Encode and send on sock, prefixed by a copy of routing_id when not NULL
   (ROUTER sockets).  Never blocks: returns -1 with errno EAGAIN when the
   peer's queue is full.  Refuses (err code bad_field, too_large) what
   the peer's decoder would: a body that breaks its schema or is over
   HEARTH_MAX_BODY_BYTES.  Consumes *self_p.  Returns 0 or -1 with err. */
int hearth_msg_send (hearth_msg_t **self_p, zsock_t *sock, zframe_t *routing_id,
                     hearth_error_t *err);

/* Receive and decode one message.  On a ROUTER socket pass routing_id_p:
   it receives the peer's routing id (caller destroys), even when decoding
   fails so that an ERROR can be sent back.  NULL with err on failure. */
hearth_msg_t *hearth_msg_recv (zsock_t *sock, zframe_t **routing_id_p,
                               hearth_error_t *err);

/* Who sent a message, as libzmq knows it (its connection's metadata). */
typedef struct {
    char address[64]; /* "Peer-Address": the peer's IP, or "" */
    char user_id[64]; /* "User-Id" the ZAP handler gave it, or "" */
} hearth_sender_t;

/* hearth_msg_recv, and the sender's address and ZAP user id into *sender
   (filled whenever a message part arrived, even when decoding fails). */
hearth_msg_t *hearth_msg_recv_from (zsock_t *sock, zframe_t **routing_id_p,
                                    hearth_sender_t *sender,
                                    hearth_error_t *err);

/* hearth_msg_recv_from without waiting (the loop's readers, loop.h):
   when no message waits, NULL with *none true (err untouched); else
   *none false and what hearth_msg_recv_from returns.  sender may be
   NULL.  When the socket itself fails (its context terminated...),
   NULL with *none false and hearth_recv_broken (err) true: nothing was
   taken and a reader must stop, not call again. */
hearth_msg_t *hearth_msg_try_recv_from (zsock_t *sock, zframe_t **routing_id_p,
                                        hearth_sender_t *sender, bool *none,
                                        hearth_error_t *err);

/* hearth_msg_try_recv_from for a reader that answers what it refuses:
   when a message of a known command arrived but could not be decoded
   (its body not JSON, too large or too deep, or breaking its command's
   schema), NULL with err as ever, and *refused_p gets what could be
   read of it: its command, and its body when that parsed (else an empty
   object), unchecked (read its fields with care), without its binary
   frames.  The caller destroys it.  Else *refused_p is NULL. */
hearth_msg_t *hearth_msg_try_recv_refused (zsock_t *sock,
                                           zframe_t **routing_id_p, bool *none,
                                           hearth_error_t *err,
                                           hearth_msg_t **refused_p);

/* Whether err, from hearth_msg_try_recv_from, says its socket cannot be
   read any more. */
bool hearth_recv_broken (const hearth_error_t *err);

/* A new ERROR {code, message, command} (borrowed: copied; message cut
   at HEARTH_ERROR_TEXT_MAX, command left out past 64 bytes or when NULL),
   or NULL on no memory: for a sender that adds fields (a standby
   master's leader, the leader's epoch). */
hearth_msg_t *hearth_error_new (const char *code, const char *message,
                                const char *command);

/* Send ERROR {code, message, command} to a peer.  Returns 0 or -1. */
int hearth_send_error (zsock_t *sock, zframe_t *routing_id, const char *code,
                       const char *message, const char *command);

/* Field readers for validated bodies: the schema guarantees the types, so
   they only handle absence.  All borrow; none allocate. */
const char *hearth_json_str (const cJSON *obj, const char *name);
int64_t hearth_json_int (const cJSON *obj, const char *name, int64_t dflt);
bool hearth_json_bool (const cJSON *obj, const char *name, bool dflt);

/* True if the JSON text nests no deeper than max_depth arrays/objects.
   Scans the bytes without parsing, so hostile input costs nothing. */
bool hearth_json_depth_ok (const char *text, size_t len, int max_depth);

#endif
