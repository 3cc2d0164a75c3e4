/*  proto_samples.h - what the codec's tests share: one realistic body
    per command (the round trip needs one for each: a command added to the
    table without a sample fails test_proto), and the helpers that build
    and check messages.  Bodies are written with single quotes for
    readability; pt_json() turns them into double quotes.  Defined in
    proto_samples.c, linked into test_proto and test_proto_reject. */
#ifndef HEARTH_TEST_PROTO_SAMPLES_H
#define HEARTH_TEST_PROTO_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/error.h"
#include "libcore/proto.h"

#define APP_ID "app-20261129201435-0001"
#define DRIVER_ID "driver-20261129201500-0002"
#define WORKER_ID "worker-20261129200000-node1.example.com-4242"

/* One realistic body per command, and the sizes of its binary frames. */
typedef struct {
    const char *json;     /* the body, with ' standing for " */
    size_t nframes;       /* binary frames that go with it */
    size_t frame_size[4]; /* their sizes (contents: pt_fill_frame) */
    size_t packed;        /* 1 + index of a frame of packed records, or 0 */
} pt_sample_t;

extern const pt_sample_t pt_samples[HEARTH_CMD_COUNT];

/* Parse a body written with single quotes. */
cJSON *pt_json (const char *squoted);

/* A reduce role's blocks frame of size / 16 records (LAUNCH_TASKS). */
zframe_t *pt_blocks_frame (size_t size);

/* The packed frame of the LAUNCH_TASKS and STATUS_UPDATE samples. */
zframe_t *pt_packed_frame (hearth_cmd_t cmd);

/* Frame i of cmd's sample, of size bytes (contents made from cmd, i and
   the offset, so that a frame mixed up with another is seen). */
zframe_t *pt_fill_frame (hearth_cmd_t cmd, size_t i, size_t size);

/* A message for cmd with the given body text and no frames. */
hearth_msg_t *pt_msg (hearth_cmd_t cmd, const char *squoted);

/* The sample message of cmd, with its frames. */
hearth_msg_t *pt_sample_msg (hearth_cmd_t cmd);

/* A multipart message of count text frames. */
zmsg_t *pt_zmsg (int count, ...);

/* A wire message HEARTH/1, name, body (single quotes), no binary frames. */
zmsg_t *pt_wire (const char *name, const char *squoted);

/* Append n binary frames of a few bytes to zmsg. */
void pt_add_frames (zmsg_t *zmsg, int n);

/* Decode zmsg (consumed), expecting failure with code; returns the text
   through err for further checks. */
void pt_decode_fails (zmsg_t *zmsg, const char *code, hearth_error_t *err);

/* Decode zmsg (consumed), expecting success. */
hearth_msg_t *pt_decode_ok (zmsg_t *zmsg);

/* Does a field list (recursively) contain a binary-frame field? */
bool pt_has_frame_field (const hearth_field_t *fields);

#endif
