/*  workers.h - the handlers of what workers send hearth-master (rid and
    msg borrowed; answers go to rid). */
#ifndef HEARTH_MASTER_WORKERS_H
#define HEARTH_MASTER_WORKERS_H

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"

/* REGISTER_WORKER: record the worker (again), reconcile what it reports
   running with the master's books, answer REGISTERED_WORKER (or
   REGISTER_WORKER_FAILED). */
void master_register_worker (void *arg, const hearth_from_t *from,
                             hearth_msg_t *msg);

/* HEARTBEAT whose body b (borrowed) names a worker: a sign of life and
   what it uses beyond the master's books; an unknown one is asked to
   register (RECONNECT_WORKER).  Publishes a `heartbeat` event. */
void master_worker_heartbeat (master_t *m, zframe_t *rid, const cJSON *b);

/* EXECUTOR_STATE_CHANGED: apply the executor's new state; an application
   with too many executor failures in a row, none running, FAILS. */
void master_executor_state_changed (void *arg, const hearth_from_t *from,
                                    hearth_msg_t *msg);

/* WORKER_STOPPING: the worker, on the connection it registered on, is
   DEAD at once with its reason (its executors LOST, its drivers lost
   with it); from anyone else, ignored. */
void master_worker_stopping (void *arg, const hearth_from_t *from,
                             hearth_msg_t *msg);

/* Whether some worker the master knows (of any state: a dead one not
   yet forgotten, --dead-worker-retention, counts) carries every label of
   labels. */
bool master_labels_known (master_t *m, const cJSON *labels);

#endif
