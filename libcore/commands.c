/*  commands.c - the one table of Hearth's commands and their body schemas.

    docs/protocol.md describes every row of this table in prose; change them
    together.  Limits are generous for real use and small enough that a
    hostile peer cannot make a daemon allocate without bound.
*/
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "libcore/cmdrules.h"
#include "libcore/ids.h"
#include "libcore/labels.h"
#include "libcore/packed.h"
#include "libcore/partfmt.h"
#include "libcore/proto.h"
#include "libcore/resources.h"
#include "libcore/timeline_live.h"

/* Limits shared by many fields. */
#define MAX_CORES 65536
#define MAX_MEMORY_MB 1099511627776.0 /* 1 EiB in MiB: "anything real" */
#define MAX_EXEC_ID 2147483647.0
#define MAX_TASK_ID 9007199254740991.0 /* 2^53 - 1, exact in JSON */
#define MAX_ATTEMPT HEARTH_TASK_ATTEMPT_MAX
#define MAX_TEXT 4096 /* messages, reasons, errors */
#define MAX_HOST 255
#define MAX_URL 512
#define MAX_SHUFFLE 2147483647.0      /* a partitioned stage's shuffle id */
#define MAX_ARG HEARTH_TASK_ARG_MAX   /* one argv element or task argument */
#define MAX_ARGV HEARTH_TASK_ARGV_MAX /* argv elements of one command */
#define MAX_BATCH 100000              /* tasks or updates in one message */
#define MAX_LIST 1000000 /* executors, workers, files listed at once */
#define MAX_EXIT 65535
#define MAX_PATH 4096                 /* a file path */
#define MAX_BYTES 9007199254740991.0  /* a byte count: 2^53 - 1 */
#define MAX_SERVERS 100000            /* block servers of one reduce task */
#define MAX_EPOCH 9007199254740991.0  /* a leader's epoch: 2^53 - 1 */
#define MAX_DRIVER_EPOCH 2147483647.0 /* an application's driver epoch */
#define MAX_OUTPUTS 100000            /* outputs in one message */
#define MAX_SHUFFLE_ID 2097151.0      /* a recorded output's shuffle id */

const char *const hearth_master_states[] = {"ALIVE", "RECOVERING", "STANDBY",
                                            NULL};
const char *const hearth_worker_states[] = {"ALIVE", "DEAD", "UNKNOWN",
                                            "DECOMMISSIONING", NULL};
/* RELAUNCHING: its driver was lost, and the application waits for a
   driver to resume it (--resume-window); not final, not active. */
const char *const hearth_app_states[] = {
    "WAITING", "RUNNING", "FINISHED", "FAILED", "KILLED", "RELAUNCHING", NULL};
const char *const hearth_executor_states[] = {
    "LAUNCHING", "RUNNING", "EXITED", "KILLED", "FAILED", "LOST", NULL};
const char *const hearth_driver_states[] = {
    "SUBMITTED", "RUNNING", "FINISHED",    "FAILED",
    "KILLED",    "ERROR",   "RELAUNCHING", NULL};
const char *const hearth_task_states[] = {"PENDING",  "LAUNCHING", "RUNNING",
                                          "FINISHED", "FAILED",    "KILLED",
                                          "LOST",     NULL};
_Static_assert(sizeof hearth_task_states / sizeof *hearth_task_states
                   == HEARTH_TASK_STATES + 1,
               "HEARTH_TASK_STATES counts hearth_task_states");
static const char *const s_driver_kinds[] = {"job", "binary", NULL};
static const char *const s_streams[] = {"stdout", "stderr", NULL};
/* Why an executor ended, beyond its state (docs/failures.md). */
static const char *const s_exit_reasons[] = {
    "OOM_KILLED", "RELEASED", "USER_REFUSED", "APPLICATION_ENDED", NULL};

/* clang-format off */
/* Shorthands for field descriptors: name, required, then the type's
   parameters. */
#define STR(n, r, lo, hi) {n, HEARTH_F_STR, r, lo, hi, 0, NULL, NULL}
#define LABEL(n, r, lo, hi) {n, HEARTH_F_LABEL, r, lo, hi, 0, NULL, NULL}
#define INT(n, r, lo, hi) {n, HEARTH_F_INT, r, lo, hi, 0, NULL, NULL}
#define NUM(n, r, lo, hi) {n, HEARTH_F_NUM, r, lo, hi, 0, NULL, NULL}
#define BOOL(n, r) {n, HEARTH_F_BOOL, r, 0, 0, 0, NULL, NULL}
#define ID(n, r, k) {n, HEARTH_F_ID, r, 0, 0, k, NULL, NULL}
#define NAME(n, r) {n, HEARTH_F_NAME, r, 0, 0, 0, NULL, NULL}
#define ENUM(n, r, v) {n, HEARTH_F_ENUM, r, 0, 0, 0, v, NULL}
#define FRAME(n, r) {n, HEARTH_F_FRAME, r, 0, 0, 0, NULL, NULL}
#define ARRAY(n, r, hi, e) {n, HEARTH_F_ARRAY, r, 0, hi, 0, NULL, e}
#define OBJECT(n, r, f) {n, HEARTH_F_OBJECT, r, 0, 0, 0, NULL, f}
#define MAP(n, r, hi, e) {n, HEARTH_F_MAP, r, 0, hi, 0, NULL, e}
#define ANY(n, r) {n, HEARTH_F_ANY, r, 0, 0, 0, NULL, NULL}
#define END {NULL, 0, 0, 0, 0, 0, NULL, NULL}

/* Fields that recur. */
#define F_APP_ID(r) ID ("app_id", r, HEARTH_ID_APP)
#define F_DRIVER_ID(r) ID ("driver_id", r, HEARTH_ID_DRIVER)
#define F_WORKER_ID(n, r) ID (n, r, HEARTH_ID_WORKER)
#define F_EXEC_ID(r) INT ("exec_id", r, 0, MAX_EXEC_ID)
#define F_CORES(n, r) INT (n, r, 1, MAX_CORES)
#define F_MEMORY(n, r) INT (n, r, 1, MAX_MEMORY_MB)
#define F_TEXT(n, r) STR (n, r, 0, MAX_TEXT) /* free text: may hold anything */
#define F_URL(n, r, lo) LABEL (n, r, lo, MAX_URL)
#define F_EXIT(n) INT (n, false, -MAX_EXIT, MAX_EXIT)
#define F_INTERVAL(n, r) INT (n, r, 1, 86400000)
#define F_LAUNCH(r) INT ("launch", r, 1, 1e9)
/* A LAUNCH_TASKS's number, from its driver (protocol.md "Batches"). */
#define F_BATCH(n) INT (n, false, 1, MAX_TASK_ID)
/* Who submitted what a LAUNCH_* starts: the key, its file's name, and the
   user that file names (docs/security.md, "Tasks run as their
   submitter"). */
#define F_OWNER                                                                \
    LABEL ("owner", false, 1, 64), NAME ("owner_name", false),                   \
        LABEL ("user", false, 1, 32)

/* The driver epoch of an application (issue 39): 1 for its first driver,
   one more for each that resumed it. */
#define F_DRIVER_EPOCH(r) INT ("driver_epoch", r, 1, MAX_DRIVER_EPOCH)

/* Element descriptors. */
static const hearth_field_t s_arg[] = {STR ("", true, 0, MAX_ARG)};
/* Custom resources (libcore/resources.h checks names and addresses). */
static const hearth_field_t s_res_addr[] = {
    LABEL ("", true, 1, HEARTH_RESOURCE_ADDR_MAX)};
static const hearth_field_t s_res_addrs[] = {
    ARRAY ("", true, HEARTH_RESOURCE_ADDRS_MAX, s_res_addr)};
static const hearth_field_t s_res_amount[] = {
    INT ("", true, 1, HEARTH_RESOURCE_AMOUNT_MAX)};
#define F_RESOURCES(n)                                                         \
    MAP (n, false, HEARTH_RESOURCES_MAX, s_res_addrs)
/* A worker's labels (libcore/labels.h checks keys and values). */
static const hearth_field_t s_label_value[] = {
    LABEL ("", true, 1, HEARTH_LABEL_VALUE_MAX)};
#define F_LABELS MAP ("labels", false, HEARTH_LABELS_MAX, s_label_value)

/* Object member lists. */
static const hearth_field_t s_executor_ref[] = {
    F_APP_ID (true), F_EXEC_ID (true), F_CORES ("cores", false),
    F_MEMORY ("memory_mb", false),
    ENUM ("state", false, hearth_executor_states), INT ("pid", false, 0, 1e9),
    F_RESOURCES ("resources"), END};
/* An application a worker has launched executors of, and whose it is. */
static const hearth_field_t s_app_ref[] = {
    F_APP_ID (true), LABEL ("owner", false, 1, 64), END};
static const hearth_field_t s_driver_ref[] = {
    F_DRIVER_ID (true), F_CORES ("cores", false),
    F_MEMORY ("memory_mb", false), INT ("pid", false, 0, 1e9),
    F_LAUNCH (false), ENUM ("state", false, hearth_driver_states),
    F_EXIT ("exit_status"), F_TEXT ("error", false), END};
/* A shipped file's mode: permission bits only, never setuid, setgid or
   sticky (docs/protocol.md "file"). */
#define F_FILE_MODE INT ("mode", false, 0, 0777)
static const hearth_field_t s_file[] = {NAME ("name", true),
                                        FRAME ("frame", true), F_FILE_MODE,
                                        END};
/* What is shipped (a library, a file) is named, not carried: the
   executor fetches it by hash (FETCH_FILE). */
#define F_SHIP_HASH LABEL ("hash", true, 1, 128)
#define F_SHIP_SIZE INT ("size", true, 0, MAX_BYTES)
static const hearth_field_t s_lib[] = {NAME ("name", true), F_SHIP_HASH,
                                       F_SHIP_SIZE, END};
static const hearth_field_t s_shipped_file[] = {
    NAME ("name", true), F_SHIP_HASH, F_SHIP_SIZE, F_FILE_MODE, END};
/* A task's shuffle roles (docs/protocol.md, "map role", "reduce role"). */
static const hearth_field_t s_map_role[] = {
    INT ("shuffle", true, 0, MAX_SHUFFLE),
    INT ("partitions", true, 1, HEARTH_MAX_PARTITIONS), BOOL ("sort", false),
    BOOL ("whole", false),
    INT ("inline_max", false, 0, HEARTH_INLINE_BLOCK_MAX),
    BOOL ("persist", false), END};
static const hearth_field_t s_block_server[] = {
    F_URL ("url", false, 0), STR ("key", false, 0, 64), END};
static const hearth_field_t s_block_servers[] = {OBJECT ("", true,
                                                         s_block_server)};
static const hearth_field_t s_reduce_role[] = {
    INT ("shuffle", true, 0, MAX_SHUFFLE),
    INT ("partition", true, 0, HEARTH_MAX_PARTITIONS - 1),
    BOOL ("sort", false),
    BOOL ("cache", false),
    ARRAY ("servers", true, MAX_SERVERS, s_block_servers),
    FRAME ("blocks", true),
    FRAME ("inline", false), /* its size: cmdrules.c */
    END};
static const hearth_field_t s_fetch_failed[] = {
    INT ("shuffle", true, 0, MAX_SHUFFLE), INT ("map", true, 0, 4294967295),
    INT ("attempt", true, 0, MAX_ATTEMPT), F_URL ("url", false, 0), END};
static const hearth_field_t s_task[] = {
    INT ("tid", true, 0, MAX_TASK_ID),
    INT ("attempt", true, 0, MAX_ATTEMPT),
    ARRAY ("cmd", false, MAX_ARGV, s_arg), /* argv[0] not "": cmdrules.c */
    STR ("fn", false, 1, HEARTH_TASK_FN_MAX),
    NAME ("lib", false),
    STR ("arg", false, 0, MAX_ARG),
    FRAME ("arg_frame", false), /* a larger argument: cmdrules.c */
    MAP ("env", false, HEARTH_TASK_ENV_MAX, s_arg),
    FRAME ("input", false),
    INT ("timeout_ms", false, 0, 31536000000.0),
    OBJECT ("map", false, s_map_role),
    OBJECT ("reduce", false, s_reduce_role),
    STR ("output", false, 1, MAX_PATH),
    STR ("commit_to", false, 1, MAX_PATH), /* with output: cmdrules.c */
    MAP ("resources", false, HEARTH_RESOURCES_MAX, s_res_amount),
    END};
static const hearth_field_t s_update[] = {
    INT ("tid", true, 0, MAX_TASK_ID),
    INT ("attempt", true, 0, MAX_ATTEMPT),
    ENUM ("state", true, hearth_task_states),
    F_EXIT ("exit_status"),
    INT ("signal", false, 0, 128),
    F_TEXT ("error", false),
    INT ("run_us", false, 0, MAX_TASK_ID),
    FRAME ("result", false),
    BOOL ("truncated", false),
    BOOL ("permanent", false),
    FRAME ("map_sizes", false),
    FRAME ("map_block", false), /* with map_sizes: cmdrules.c */
    INT ("map_bytes", false, 0, MAX_BYTES),
    OBJECT ("fetch_failed", false, s_fetch_failed),
    INT ("output_bytes", false, 0, MAX_BYTES),
    BOOL ("input_kept", false),
    END};

/* Element descriptors built from the member lists. */
static const hearth_field_t s_executor_refs[] = {OBJECT ("", true,
                                                         s_executor_ref)};
static const hearth_field_t s_driver_refs[] = {OBJECT ("", true, s_driver_ref)};
static const hearth_field_t s_app_refs[] = {OBJECT ("", true, s_app_ref)};
static const hearth_field_t s_files[] = {OBJECT ("", true, s_file)};
static const hearth_field_t s_libs[] = {OBJECT ("", true, s_lib)};
static const hearth_field_t s_shipped_files[] = {
    OBJECT ("", true, s_shipped_file)};
static const hearth_field_t s_tasks[] = {OBJECT ("", true, s_task)};
static const hearth_field_t s_updates[] = {OBJECT ("", true, s_update)};
static const hearth_field_t s_objects[] = {OBJECT ("", true, NULL)};

/* Command bodies. */
static const hearth_field_t b_error[] = {
    LABEL ("code", true, 1, 64), F_TEXT ("message", true),
    LABEL ("command", false, 0, 64), F_URL ("leader", false, 0),
    F_BATCH ("batch"), INT ("launched", false, 0, MAX_TASK_ID),
    INT ("request", false, 0, MAX_BYTES), END};
static const hearth_field_t b_heartbeat[] = {
    LABEL ("id", false, 0, 128),
    ENUM ("status", false, hearth_master_states),
    INT ("cores_used", false, 0, MAX_CORES),
    INT ("memory_used_mb", false, 0, MAX_MEMORY_MB),
    INT ("tasks_running", false, 0, MAX_LIST),
    ARRAY ("executors", false, MAX_LIST, s_executor_refs),
    ARRAY ("drivers", false, MAX_LIST, s_driver_refs),
    INT ("shuffle_bytes", false, 0, 9007199254740991),
    INT ("persisted_bytes", false, 0, MAX_BYTES),
    INT ("peak_rss_bytes", false, 0, MAX_BYTES), F_BATCH ("launched"),
    INT ("cache_bytes", false, 0, MAX_BYTES), END};
static const hearth_field_t b_register_worker[] = {
    F_WORKER_ID ("id", true), LABEL ("host", true, 1, MAX_HOST),
    F_CORES ("cores", true), F_MEMORY ("memory_mb", true),
    LABEL ("version", true, 1, 64), STR ("work_dir", false, 0, 4096),
    LABEL ("work_dir_id", false, 0, 128),
    ARRAY ("executors", false, MAX_LIST, s_executor_refs),
    ARRAY ("drivers", false, MAX_LIST, s_driver_refs),
    ARRAY ("apps", false, MAX_LIST, s_app_refs),
    F_URL ("shuffle_url", false, 0), STR ("shuffle_key", false, 0, 64),
    LABEL ("web_url", false, 0, 255), F_RESOURCES ("resources"), F_LABELS,
    END};
static const hearth_field_t b_registered_worker[] = {
    F_INTERVAL ("heartbeat_interval_ms", true),
    INT ("heartbeat_liveness", false, 1, 1000),
    F_URL ("master_url", false, 0), LABEL ("master_web_url", false, 0, 255),
    END};
static const hearth_field_t b_reason[] = {F_TEXT ("reason", true), END};
static const hearth_field_t b_optional_reason[] = {F_TEXT ("reason", false),
                                                   END};
static const hearth_field_t b_launch_executor[] = {
    F_APP_ID (true), F_EXEC_ID (true), F_CORES ("cores", true),
    F_MEMORY ("memory_mb", true), F_URL ("driver_url", true, 1),
    LABEL ("app_name", false, 0, 255), STR ("driver_key", false, 0, 64),
    STR ("token", false, 0, 128), MAP ("conf", false, 1024, s_arg),
    F_RESOURCES ("resources"), F_OWNER, END};
static const hearth_field_t b_kill_executor[] = {
    F_APP_ID (true), F_EXEC_ID (true), F_TEXT ("reason", false), END};
static const hearth_field_t b_executor_state_changed[] = {
    F_APP_ID (true), F_EXEC_ID (true),
    ENUM ("state", true, hearth_executor_states), F_TEXT ("message", false),
    F_EXIT ("exit_status"), INT ("signal", false, 0, 128),
    INT ("pid", false, 0, 1e9), INT ("peak_rss_bytes", false, 0, MAX_BYTES),
    ENUM ("reason", false, s_exit_reasons),
    INT ("memory_limit_bytes", false, 0, MAX_BYTES), END};
static const hearth_field_t b_launch_driver[] = {
    F_DRIVER_ID (true), F_CORES ("cores", true), F_MEMORY ("memory_mb", true),
    NAME ("app", true), ENUM ("kind", true, s_driver_kinds),
    ARRAY ("args", false, MAX_ARGV, s_arg),
    ARRAY ("files", true, 1024, s_files),
    F_URL ("master_url", true, 1), MAP ("env", false, 1024, s_arg),
    MAP ("conf", false, 1024, s_arg), LABEL ("name", false, 0, 255),
    F_LAUNCH (false), F_OWNER, STR ("curve_secret", false, 40, 40), END};
static const hearth_field_t b_driver_id[] = {F_DRIVER_ID (true), END};
static const hearth_field_t b_driver_state_changed[] = {
    F_DRIVER_ID (true), ENUM ("state", true, hearth_driver_states),
    F_TEXT ("error", false), F_EXIT ("exit_status"),
    INT ("signal", false, 0, 128), INT ("pid", false, 0, 1e9),
    F_LAUNCH (false), END};
static const hearth_field_t b_register_application[] = {
    LABEL ("name", true, 1, 255), F_CORES ("max_cores", false),
    F_CORES ("cores_per_executor", false),
    F_MEMORY ("memory_per_executor_mb", false), F_URL ("driver_url", true, 1),
    F_APP_ID (false), F_DRIVER_ID (false), LABEL ("user", false, 0, 255),
    ARRAY ("executors", false, MAX_LIST, s_executor_refs),
    STR ("token", false, 0, 128), STR ("driver_key", false, 0, 64),
    MAP ("conf", false, 1024, s_arg), STR ("event_log", false, 1, MAX_PATH),
    MAP ("executor_resources", false, HEARTH_RESOURCES_MAX, s_res_amount),
    INT ("executor_target", false, 0, MAX_CORES),
    MAP ("executor_labels", false, HEARTH_LABELS_MAX, s_label_value),
    ID ("resume", false, HEARTH_ID_APP), F_DRIVER_EPOCH (false), END};
static const hearth_field_t b_registered_application[] = {
    F_APP_ID (true), F_INTERVAL ("heartbeat_interval_ms", false),
    INT ("heartbeat_liveness", false, 1, 1000),
    F_DRIVER_EPOCH (false), BOOL ("resumed", false),
    STR ("token", false, 0, 128), END};
static const hearth_field_t b_executor_added[] = {
    F_APP_ID (false), F_EXEC_ID (true), F_WORKER_ID ("worker_id", true),
    LABEL ("host", true, 1, MAX_HOST), F_CORES ("cores", true),
    F_MEMORY ("memory_mb", true), F_RESOURCES ("resources"), F_LABELS, END};
static const hearth_field_t b_executor_updated[] = {
    F_APP_ID (false), F_EXEC_ID (true),
    ENUM ("state", true, hearth_executor_states), F_TEXT ("message", false),
    F_EXIT ("exit_status"), BOOL ("worker_lost", false),
    INT ("peak_rss_bytes", false, 0, MAX_BYTES),
    ENUM ("reason", false, s_exit_reasons),
    INT ("memory_limit_bytes", false, 0, MAX_BYTES),
    F_WORKER_ID ("worker_id", false), END};
static const hearth_field_t b_application_removed[] = {
    F_APP_ID (false), F_TEXT ("reason", true),
    ENUM ("state", false, hearth_app_states), END};
static const hearth_field_t b_unregister_application[] = {
    F_APP_ID (true), ENUM ("state", false, hearth_app_states),
    F_TEXT ("message", false), F_DRIVER_EPOCH (false), END};
static const hearth_field_t b_submit_driver[] = {
    LABEL ("name", false, 0, 255), NAME ("app", true),
    ENUM ("kind", true, s_driver_kinds), ARRAY ("args", false, MAX_ARGV, s_arg),
    ARRAY ("files", true, 1024, s_files), F_CORES ("cores", false),
    F_MEMORY ("memory_mb", false), BOOL ("supervise", false),
    MAP ("env", false, 1024, s_arg), MAP ("conf", false, 1024, s_arg), END};
static const hearth_field_t b_response[] = {
    BOOL ("ok", true), LABEL ("driver_id", false, 0, 128),
    LABEL ("app_id", false, 0, 128), F_TEXT ("message", false), END};
static const hearth_field_t b_driver_application[] = {
    F_DRIVER_ID (true), F_APP_ID (true), END};
static const hearth_field_t b_driver_log[] = {
    F_DRIVER_ID (true), ENUM ("stream", false, s_streams),
    INT ("offset", false, 0, MAX_TASK_ID),
    INT ("max_bytes", false, 0, 64 * 1024 * 1024),
    INT ("request_id", false, 0, MAX_TASK_ID), END};
static const hearth_field_t b_driver_log_response[] = {
    BOOL ("ok", true), F_DRIVER_ID (false), ENUM ("stream", false, s_streams),
    INT ("offset", false, 0, MAX_TASK_ID), INT ("size", false, 0, MAX_TASK_ID),
    FRAME ("data", false), BOOL ("eof", false),
    INT ("request_id", false, 0, MAX_TASK_ID), F_TEXT ("message", false), END};
static const hearth_field_t b_app_id[] = {F_APP_ID (true), END};
static const hearth_field_t b_empty[] = {END};
static const hearth_field_t b_master_state_response[] = {
    ENUM ("status", true, hearth_master_states),
    ARRAY ("workers", true, MAX_LIST, s_objects),
    ARRAY ("apps", true, MAX_LIST, s_objects),
    ARRAY ("drivers", true, MAX_LIST, s_objects),
    F_URL ("url", false, 0), ANY ("policy", false), END};
static const hearth_field_t b_register_executor[] = {
    F_APP_ID (true), F_EXEC_ID (true), LABEL ("host", true, 1, MAX_HOST),
    F_CORES ("cores", true), INT ("pid", true, 0, 1e9),
    STR ("token", false, 0, 128), F_URL ("shuffle_url", false, 0),
    STR ("shuffle_key", false, 0, 64), F_RESOURCES ("resources"), END};
static const hearth_field_t b_registered_executor[] = {
    ARRAY ("libs", false, 1024, s_libs), F_INTERVAL ("heartbeat_interval_ms",
                                                     false),
    INT ("heartbeat_liveness", false, 1, 1000),
    INT ("max_result_bytes", false, 0, 1LL << 40),
    ARRAY ("files", false, 1024, s_shipped_files),
    INT ("shuffle_memory", false, 0, 1LL << 40),
    INT ("fetch_max_in_flight", false, 0, 1LL << 40),
    INT ("max_input_bytes", false, 0, 1LL << 40),
    INT ("cache_memory", false, 0, 1LL << 40),
    INT ("ship_start", false, 0, 999999),
    ARRAY ("broadcast", false, 1024, s_libs), END};
/* A stage whose packed tasks write a map output read whole. */
static const hearth_field_t s_whole_map[] = {
    INT ("stage", true, 0, 4294967295.0),
    INT ("inline_max", true, 1, HEARTH_INLINE_BLOCK_MAX), END};
static const hearth_field_t s_whole_maps[] = {OBJECT ("", true, s_whole_map)};
static const hearth_field_t b_launch_tasks[] = {
    ARRAY ("tasks", true, MAX_BATCH, s_tasks), FRAME ("packed", false),
    ARRAY ("whole_maps", false, 4096, s_whole_maps), F_BATCH ("batch"), END};
static const hearth_field_t b_kill_task[] = {
    INT ("tid", true, 0, MAX_TASK_ID), INT ("attempt", true, 0, MAX_ATTEMPT),
    END};
static const hearth_field_t b_commit_answer[] = {
    INT ("tid", true, 0, MAX_TASK_ID), INT ("attempt", true, 0, MAX_ATTEMPT),
    BOOL ("allowed", true), END};
static const hearth_field_t b_status_update[] = {
    ARRAY ("updates", true, MAX_BATCH, s_updates), FRAME ("packed", false),
    INT ("peak_rss_bytes", false, 0, MAX_BYTES), F_BATCH ("launched"),
    INT ("cache_bytes", false, 0, MAX_BYTES), END};
static const hearth_field_t b_drain_worker[] = {
    F_WORKER_ID ("worker_id", true), F_TEXT ("reason", false), END};
static const hearth_field_t b_worker_id[] = {F_WORKER_ID ("worker_id", true),
                                             END};
static const hearth_field_t b_worker_response[] = {
    BOOL ("ok", true), LABEL ("worker_id", false, 0, 128),
    BOOL ("draining", false), F_TEXT ("message", false), END};

/* Standby masters following the leader's journal (master/replicate.c,
   master/follow.c). */
static const hearth_field_t b_follow_journal[] = {
    LABEL ("stream", false, 0, 32), F_URL ("url", false, 0), END};
/* A cluster-mode driver's files in a JOURNAL_DATA: count frames from
   first. */
static const hearth_field_t s_journal_file[] = {
    F_DRIVER_ID (true), FRAME ("first", true),
    INT ("count", true, 1, HEARTH_MAX_FRAMES),
    END};
static const hearth_field_t s_journal_files[] = {
    OBJECT ("", true, s_journal_file)};
static const hearth_field_t b_journal_data[] = {
    LABEL ("stream", true, 1, 32), INT ("seq", true, 0, MAX_EPOCH),
    BOOL ("snapshot", false), BOOL ("last", false),
    ARRAY ("records", true, MAX_LIST, s_objects),
    ARRAY ("files", false, MAX_LIST, s_journal_files), END};

static const hearth_field_t b_worker_stopping[] = {
    F_WORKER_ID ("id", true), F_TEXT ("reason", true), END};

/* Decommission (issue 18): a worker leaving, its executors' drivers told,
   an operator's request and the master's to the worker. */
#define MAX_DECOM_MS 604800000 /* a week */
static const hearth_field_t b_worker_decommissioning[] = {
    F_WORKER_ID ("id", true), F_TEXT ("reason", true),
    INT ("timeout_ms", true, 0, MAX_DECOM_MS), END};
static const hearth_field_t b_executor_decommissioning[] = {
    F_APP_ID (false), F_EXEC_ID (true), F_TEXT ("reason", true),
    F_WORKER_ID ("worker_id", false), INT ("timeout_ms", false, 0, MAX_DECOM_MS),
    END};
static const hearth_field_t b_decommission_worker[] = {
    F_WORKER_ID ("worker_id", true), F_TEXT ("reason", false),
    INT ("timeout_ms", false, 0, MAX_DECOM_MS), END};
static const hearth_field_t b_decommission_worker_response[] = {
    BOOL ("ok", true), LABEL ("worker_id", false, 0, 128),
    ENUM ("state", false, hearth_worker_states), F_TEXT ("message", false),
    END};
static const hearth_field_t b_decommission[] = {
    F_TEXT ("reason", false), INT ("timeout_ms", false, 0, MAX_DECOM_MS), END};

/* The shuffle's blocks, from a worker's block server. */
static const hearth_field_t b_fetch_block[] = {
    F_APP_ID (true), STR ("token", true, 1, 128),
    INT ("shuffle", true, 0, MAX_SHUFFLE), INT ("map", true, 0, 4294967295),
    INT ("attempt", true, 0, 1000000),
    INT ("partition", true, 0, HEARTH_MAX_PARTITIONS - 1),
    INT ("offset", true, 0, 9007199254740991),
    INT ("max_bytes", true, 1, HEARTH_FETCH_MAX_BYTES),
    INT ("request", false, 0, 9007199254740991), END};
static const hearth_field_t b_block_data[] = {
    INT ("request", false, 0, 9007199254740991),
    INT ("offset", true, 0, 9007199254740991),
    INT ("length", true, 0, 9007199254740991), BOOL ("eof", true),
    FRAME ("data", false), LABEL ("code", false, 0, 64),
    F_TEXT ("error", false), END};

/* A shipped file's or library's bytes, from the driver. */
static const hearth_field_t b_fetch_file[] = {
    F_SHIP_HASH, INT ("offset", true, 0, MAX_BYTES),
    INT ("length", true, 1, HEARTH_FILE_CHUNK_MAX),
    INT ("request", true, 0, MAX_BYTES), BOOL ("force", false),
    F_APP_ID (false), STR ("token", false, 1, 128), NAME ("name", false),
    END};
static const hearth_field_t b_file_holders[] = {
    F_SHIP_HASH, INT ("request", true, 0, MAX_BYTES),
    INT ("offset", true, 0, MAX_BYTES),
    ARRAY ("holders", true, HEARTH_FILE_HOLDERS_MAX, s_block_servers), END};
static const hearth_field_t b_file_held[] = {F_SHIP_HASH, END};
static const hearth_field_t b_broadcast[] = {
    ARRAY ("broadcast", true, 1024, s_libs), END};
static const hearth_field_t b_file_chunk[] = {
    F_SHIP_HASH, INT ("request", true, 0, MAX_BYTES),
    INT ("offset", true, 0, MAX_BYTES), INT ("crc32c", true, 0, 4294967295.0),
    FRAME ("data", true), END};

/* A driver's progress summary (docs/protocol.md, APPLICATION_PROGRESS). */
static const hearth_field_t s_progress_stage[] = {
    INT ("job", true, 0, MAX_TASK_ID), INT ("stage", true, 0, MAX_EXEC_ID),
    LABEL ("name", true, 0, HEARTH_PROGRESS_NAME_MAX),
    INT ("tasks", true, 0, MAX_TASK_ID), INT ("finished", true, 0, MAX_TASK_ID),
    INT ("running", true, 0, MAX_TASK_ID), INT ("failed", true, 0, MAX_TASK_ID),
    END};
static const hearth_field_t s_progress_stages[] = {OBJECT ("", true,
                                                           s_progress_stage)};
/* Attempts launched at each locality level (issue 37), every job's. */
static const hearth_field_t s_progress_locality[] = {
    INT ("node_local", true, 0, MAX_TASK_ID),
    INT ("rack_local", true, 0, MAX_TASK_ID), INT ("any", true, 0, MAX_TASK_ID),
    END};
/* What persisted stages keep in the application's executors' memory. */
static const hearth_field_t s_persisted_exec[] = {
    INT ("executor", true, 0, MAX_EXEC_ID),
    INT ("memory_bytes", true, 0, MAX_BYTES), END};
static const hearth_field_t s_persisted_execs[] = {OBJECT ("", true,
                                                           s_persisted_exec)};
static const hearth_field_t s_progress_persisted[] = {
    INT ("memory_bytes", true, 0, MAX_BYTES),
    ARRAY ("executors", true, MAX_LIST, s_persisted_execs), END};
/* A progress summary's fields: APPLICATION_PROGRESS's, and the copy of
   it the master keeps (DRIVER_STATUS_RESPONSE's progress). */
#define F_PROGRESS_SUMMARY                                                     \
    INT ("jobs_active", true, 0, MAX_LIST),                                    \
        INT ("tasks_total", true, 0, MAX_TASK_ID),                             \
        INT ("tasks_finished", true, 0, MAX_TASK_ID),                          \
        INT ("tasks_failed", true, 0, MAX_TASK_ID),                            \
        INT ("tasks_running", true, 0, MAX_TASK_ID),                           \
        ARRAY ("stages", true, HEARTH_PROGRESS_STAGES, s_progress_stages),     \
        ARRAY ("waiting", false, HEARTH_PROGRESS_STAGES, s_progress_stages),   \
        ARRAY ("completed", false, HEARTH_PROGRESS_STAGES, s_progress_stages), \
        OBJECT ("locality", false, s_progress_locality),                   \
        OBJECT ("persisted", false, s_progress_persisted)
/* The last APPLICATION_PROGRESS of a driver's application, as the master
   keeps it (time_ms: its wall clock when it arrived). */
static const hearth_field_t s_app_progress[] = {
    INT ("time_ms", false, 0, MAX_TASK_ID), F_PROGRESS_SUMMARY, END};
static const hearth_field_t b_driver_status_response[] = {
    BOOL ("found", true), LABEL ("driver_id", false, 0, 128),
    ENUM ("state", false, hearth_driver_states),
    LABEL ("worker_id", false, 0, 128),
    LABEL ("worker_host", false, 0, MAX_HOST),
    F_APP_ID (false), F_TEXT ("error", false), F_EXIT ("exit_status"),
    INT ("launches", false, 0, 1e9), BOOL ("supervise", false),
    F_TEXT ("message", false), STR ("work_dir", false, 0, 4096),
    ENUM ("app_state", false, hearth_app_states), F_TEXT ("app_reason", false),
    OBJECT ("progress", false, s_app_progress), END};
/* Why an application waits ("" once it no longer does), and the code
   of that reason (libcore/allocwhy.h). */
static const hearth_field_t b_application_waiting[] = {
    F_APP_ID (false), F_TEXT ("reason", true), STR ("code", false, 0, 64),
    END};
/* Dynamic allocation (libhearth/dynalloc.c): the executors the application
   wants, and idle ones it gives back. */
static const hearth_field_t s_exec_ids[] = {INT ("", true, 0, MAX_EXEC_ID)};
/* What the tasks waiting to start prefer: each place with how many. */
static const hearth_field_t s_place_count[] = {
    INT ("", true, 1, MAX_TASK_ID)};
static const hearth_field_t b_request_executors[] = {
    F_APP_ID (true), INT ("total", true, 0, MAX_CORES),
    MAP ("places", false, 32, s_place_count), END};
static const hearth_field_t b_kill_executors[] = {
    F_APP_ID (true), ARRAY ("exec_ids", true, MAX_LIST, s_exec_ids), END};
/* The live timeline's news since the driver's last report
   (libcore/timeline_live.h): attempts as arrays of HEARTH_TLW_COLS
   integers, whose ranges and order hearth_cmdrules_progress checks. */
static const hearth_field_t s_tl_int[] = {INT ("", true, 0, MAX_TASK_ID)};
static const hearth_field_t s_tl_attempt[] = {
    {"", HEARTH_F_ARRAY, true, HEARTH_TLW_COLS, HEARTH_TLW_COLS, 0, NULL,
     s_tl_int}};
static const hearth_field_t s_tl_exec[] = {
    INT ("id", true, 0, MAX_EXEC_ID), F_CORES ("cores", false),
    LABEL ("host", false, 0, MAX_HOST), INT ("added_ms", false, 0, MAX_TASK_ID),
    INT ("removed_ms", false, 0, MAX_TASK_ID), F_TEXT ("reason", false), END};
static const hearth_field_t s_tl_execs[] = {OBJECT ("", true, s_tl_exec)};
static const hearth_field_t s_tl_stage[] = {
    INT ("id", true, 0, 4294967295.0),
    LABEL ("name", false, 0, HEARTH_PROGRESS_NAME_MAX),
    INT ("start_ms", false, 0, MAX_TASK_ID),
    INT ("end_ms", false, 0, MAX_TASK_ID), LABEL ("state", false, 0, 32), END};
static const hearth_field_t s_tl_stages[] = {OBJECT ("", true, s_tl_stage)};
static const hearth_field_t s_timeline[] = {
    INT ("now_ms", true, 0, MAX_TASK_ID), INT ("cut", false, 0, MAX_TASK_ID),
    ARRAY ("attempts", false, HEARTH_TL_MAX_TASKS, s_tl_attempt),
    ARRAY ("executors", false, HEARTH_TLW_MAX_EXECS, s_tl_execs),
    ARRAY ("stages", false, HEARTH_TL_MAX_STAGES, s_tl_stages), END};
static const hearth_field_t b_application_progress[] = {
    F_APP_ID (true), F_PROGRESS_SUMMARY, OBJECT ("timeline", false, s_timeline),
    END};

/* What a driver would lose if it died (issue 39; master/outputs.h): a map
   output on a worker, or a committed part file, of a stage known by its
   fingerprint. */
static const char *const s_output_kinds[] = {"map", "part", NULL};
static const hearth_field_t s_partition_size[] = {INT ("", true, 0,
                                                       MAX_BYTES)};
static const hearth_field_t s_output[] = {
    STR ("stage", true, 1, 64), LABEL ("stage_name", false, 1, 255),
    ENUM ("kind", true, s_output_kinds),
    INT ("index", true, 0, 4294967295.0), INT ("attempt", false, 0, 65535),
    INT ("shuffle_id", false, 0, MAX_SHUFFLE_ID),
    F_WORKER_ID ("worker_id", false), F_URL ("server", false, 1),
    STR ("server_key", false, 0, 64),
    ARRAY ("sizes", false, 65536, s_partition_size),
    LABEL ("name", false, 1, 255), LABEL ("host", false, 1, MAX_HOST),
    INT ("bytes", false, 0, MAX_BYTES), BOOL ("lost", false), END};
static const hearth_field_t s_outputs[] = {OBJECT ("", true, s_output)};
static const hearth_field_t b_outputs_recorded[] = {
    F_APP_ID (true), F_DRIVER_EPOCH (true),
    {"outputs", HEARTH_F_ARRAY, true, 1, MAX_OUTPUTS, 0, NULL, s_outputs},
    END};
static const hearth_field_t b_application_outputs[] = {
    F_APP_ID (true), ARRAY ("outputs", true, MAX_OUTPUTS, s_outputs),
    BOOL ("last", false), INT ("max_shuffle_id", false, 0, MAX_SHUFFLE_ID),
    END};

/* clang-format on */

typedef struct {
    const char *name;             /* wire name */
    const hearth_field_t *schema; /* body fields */
    int (*check) (const cJSON *body, zframe_t *const *frames, size_t nframes,
                  hearth_error_t *err); /* rules beyond the schema, or NULL */
} s_command_t;

/* Fields any command may carry (protocol.md section 4): the leader's
   epoch, which a master with --zookeeper puts in everything it sends. */
static const hearth_field_t s_common[] = {INT ("epoch", false, 1, MAX_EPOCH),
                                          END};

static const s_command_t s_commands[HEARTH_CMD_COUNT] = {
    [HEARTH_CMD_ERROR] = {"ERROR", b_error},
    [HEARTH_CMD_HEARTBEAT] = {"HEARTBEAT", b_heartbeat},
    [HEARTH_CMD_REGISTER_WORKER] = {"REGISTER_WORKER", b_register_worker},
    [HEARTH_CMD_REGISTERED_WORKER] = {"REGISTERED_WORKER", b_registered_worker},
    [HEARTH_CMD_REGISTER_WORKER_FAILED] = {"REGISTER_WORKER_FAILED", b_reason},
    [HEARTH_CMD_RECONNECT_WORKER] = {"RECONNECT_WORKER", b_optional_reason},
    [HEARTH_CMD_LAUNCH_EXECUTOR] = {"LAUNCH_EXECUTOR", b_launch_executor},
    [HEARTH_CMD_KILL_EXECUTOR] = {"KILL_EXECUTOR", b_kill_executor},
    [HEARTH_CMD_EXECUTOR_STATE_CHANGED] = {"EXECUTOR_STATE_CHANGED",
                                           b_executor_state_changed},
    [HEARTH_CMD_LAUNCH_DRIVER] = {"LAUNCH_DRIVER", b_launch_driver},
    [HEARTH_CMD_KILL_DRIVER] = {"KILL_DRIVER", b_driver_id},
    [HEARTH_CMD_DRIVER_STATE_CHANGED] = {"DRIVER_STATE_CHANGED",
                                         b_driver_state_changed},
    [HEARTH_CMD_DRIVER_APPLICATION] = {"DRIVER_APPLICATION",
                                       b_driver_application},
    [HEARTH_CMD_REGISTER_APPLICATION] = {"REGISTER_APPLICATION",
                                         b_register_application},
    [HEARTH_CMD_REGISTERED_APPLICATION] = {"REGISTERED_APPLICATION",
                                           b_registered_application},
    [HEARTH_CMD_RECONNECT_APPLICATION] = {"RECONNECT_APPLICATION",
                                          b_optional_reason},
    [HEARTH_CMD_EXECUTOR_ADDED] = {"EXECUTOR_ADDED", b_executor_added},
    [HEARTH_CMD_EXECUTOR_UPDATED] = {"EXECUTOR_UPDATED", b_executor_updated},
    [HEARTH_CMD_APPLICATION_REMOVED] = {"APPLICATION_REMOVED",
                                        b_application_removed},
    [HEARTH_CMD_UNREGISTER_APPLICATION] = {"UNREGISTER_APPLICATION",
                                           b_unregister_application},
    [HEARTH_CMD_SUBMIT_DRIVER] = {"SUBMIT_DRIVER", b_submit_driver},
    [HEARTH_CMD_SUBMIT_DRIVER_RESPONSE] = {"SUBMIT_DRIVER_RESPONSE",
                                           b_response},
    [HEARTH_CMD_DRIVER_STATUS] = {"DRIVER_STATUS", b_driver_id},
    [HEARTH_CMD_DRIVER_STATUS_RESPONSE] = {"DRIVER_STATUS_RESPONSE",
                                           b_driver_status_response},
    [HEARTH_CMD_KILL_DRIVER_RESPONSE] = {"KILL_DRIVER_RESPONSE", b_response},
    [HEARTH_CMD_DRIVER_LOG] = {"DRIVER_LOG", b_driver_log},
    [HEARTH_CMD_DRIVER_LOG_RESPONSE] = {"DRIVER_LOG_RESPONSE",
                                        b_driver_log_response},
    [HEARTH_CMD_KILL_APPLICATION] = {"KILL_APPLICATION", b_app_id},
    [HEARTH_CMD_KILL_APPLICATION_RESPONSE] = {"KILL_APPLICATION_RESPONSE",
                                              b_response},
    [HEARTH_CMD_MASTER_STATE] = {"MASTER_STATE", b_empty},
    [HEARTH_CMD_MASTER_STATE_RESPONSE] = {"MASTER_STATE_RESPONSE",
                                          b_master_state_response},
    [HEARTH_CMD_REGISTER_EXECUTOR] = {"REGISTER_EXECUTOR", b_register_executor},
    [HEARTH_CMD_REGISTERED_EXECUTOR] = {"REGISTERED_EXECUTOR",
                                        b_registered_executor},
    [HEARTH_CMD_LAUNCH_TASKS] = {"LAUNCH_TASKS", b_launch_tasks,
                                 hearth_cmdrules_tasks},
    [HEARTH_CMD_KILL_TASK] = {"KILL_TASK", b_kill_task},
    [HEARTH_CMD_STOP_EXECUTOR] = {"STOP_EXECUTOR", b_optional_reason},
    [HEARTH_CMD_STATUS_UPDATE] = {"STATUS_UPDATE", b_status_update,
                                  hearth_cmdrules_updates},
    [HEARTH_CMD_ASK_COMMIT] = {"ASK_COMMIT", b_kill_task},
    [HEARTH_CMD_COMMIT_ANSWER] = {"COMMIT_ANSWER", b_commit_answer},
    [HEARTH_CMD_WORKER_STOPPING] = {"WORKER_STOPPING", b_worker_stopping},
    [HEARTH_CMD_DRAIN_WORKER] = {"DRAIN_WORKER", b_drain_worker},
    [HEARTH_CMD_DRAIN_WORKER_RESPONSE] = {"DRAIN_WORKER_RESPONSE",
                                          b_worker_response},
    [HEARTH_CMD_RESUME_WORKER] = {"RESUME_WORKER", b_worker_id},
    [HEARTH_CMD_RESUME_WORKER_RESPONSE] = {"RESUME_WORKER_RESPONSE",
                                           b_worker_response},
    [HEARTH_CMD_FETCH_BLOCK] = {"FETCH_BLOCK", b_fetch_block},
    [HEARTH_CMD_BLOCK_DATA] = {"BLOCK_DATA", b_block_data},
    [HEARTH_CMD_APPLICATION_PROGRESS] = {"APPLICATION_PROGRESS",
                                         b_application_progress,
                                         hearth_cmdrules_progress},
    [HEARTH_CMD_APPLICATION_WAITING] = {"APPLICATION_WAITING",
                                        b_application_waiting},
    [HEARTH_CMD_REQUEST_EXECUTORS] = {"REQUEST_EXECUTORS", b_request_executors},
    [HEARTH_CMD_KILL_EXECUTORS] = {"KILL_EXECUTORS", b_kill_executors},
    [HEARTH_CMD_WORKER_DECOMMISSIONING] = {"WORKER_DECOMMISSIONING",
                                           b_worker_decommissioning},
    [HEARTH_CMD_EXECUTOR_DECOMMISSIONING] = {"EXECUTOR_DECOMMISSIONING",
                                             b_executor_decommissioning},
    [HEARTH_CMD_DECOMMISSION_WORKER] = {"DECOMMISSION_WORKER",
                                        b_decommission_worker},
    [HEARTH_CMD_DECOMMISSION_WORKER_RESPONSE] =
        {"DECOMMISSION_WORKER_RESPONSE", b_decommission_worker_response},
    [HEARTH_CMD_DECOMMISSION] = {"DECOMMISSION", b_decommission},
    [HEARTH_CMD_FOLLOW_JOURNAL] = {"FOLLOW_JOURNAL", b_follow_journal},
    [HEARTH_CMD_JOURNAL_DATA] = {"JOURNAL_DATA", b_journal_data},
    [HEARTH_CMD_FETCH_FILE] = {"FETCH_FILE", b_fetch_file},
    [HEARTH_CMD_FILE_CHUNK] = {"FILE_CHUNK", b_file_chunk},
    [HEARTH_CMD_FILE_HOLDERS] = {"FILE_HOLDERS", b_file_holders},
    [HEARTH_CMD_FILE_HELD] = {"FILE_HELD", b_file_held},
    [HEARTH_CMD_BROADCAST] = {"BROADCAST", b_broadcast},
    [HEARTH_CMD_OUTPUTS_RECORDED] = {"OUTPUTS_RECORDED", b_outputs_recorded},
    [HEARTH_CMD_APPLICATION_OUTPUTS] = {"APPLICATION_OUTPUTS",
                                        b_application_outputs},
};

const char *
hearth_cmd_name (hearth_cmd_t cmd)
{
    if ((unsigned) cmd >= HEARTH_CMD_COUNT)
        return NULL;
    return s_commands[cmd].name;
}

int
hearth_cmd_lookup (const char *name, size_t len)
{
    for (int i = 0; i < HEARTH_CMD_COUNT; i++) {
        const char *n = s_commands[i].name;
        if (strlen (n) == len && memcmp (n, name, len) == 0)
            return i;
    }
    return -1;
}

const hearth_field_t *
hearth_cmd_schema (hearth_cmd_t cmd)
{
    if ((unsigned) cmd >= HEARTH_CMD_COUNT)
        return NULL;
    return s_commands[cmd].schema;
}

int
hearth_cmd_check_body (hearth_cmd_t cmd, const cJSON *body,
                       zframe_t *const *frames, size_t nframes,
                       hearth_error_t *err)
{
    if ((unsigned) cmd >= HEARTH_CMD_COUNT)
        return hearth_errcode (err, "unknown_command", "unknown command %d",
                               (int) cmd);
    const s_command_t *c = &s_commands[cmd];
    if (hearth_schema_check (body, s_common, nframes, err) < 0
        || hearth_schema_check (body, c->schema, nframes, err) < 0)
        return -1;
    return c->check ? c->check (body, frames, nframes, err) : 0;
}
