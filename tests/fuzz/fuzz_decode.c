/*  fuzz_decode.c - libFuzzer target for the wire decoder (libcore/proto.c).

    Framing of an input: the bytes are cut into frames at every occurrence
    of the four bytes "\n--\n", that is a line that holds only "--".  An
    empty input is a message of no frames.  A seed is therefore readable:

        HEARTH/1
        --
        KILL_TASK
        --
        {"tid":1,"attempt":0}

    and binary frames simply follow the body, each after its own "--" line.
    The frames become a zmsg that hearth_msg_decode() consumes.

    The decoder checks the packed frames of LAUNCH_TASKS and STATUS_UPDATE
    record by record (libcore/packed.c), so they are fuzzed with it (seeds
    17 and 18).

    Its body must print (hearth_json_print, the encoder's printer) exactly
    as cJSON_PrintUnformatted prints it.

    A message that decodes is encoded again (hearth_msg_encode), and that
    encoding must decode again and encode to the very same bytes: the codec
    accepts what it produces and is stable after one round.  A broken
    property aborts, which libFuzzer reports as a crash; the sanitizers
    report memory errors, undefined behaviour and leaks.

    Build and run: `make fuzz` (FUZZ_SECONDS=60 by default), or the short
    run of `make check` (tests/fuzz/run-fuzz.sh).
*/
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/jsonprint.h"
#include "libcore/proto.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const char s_separator[] = "\n--\n";

static void
s_die (const char *what, const hearth_error_t *err)
{
    fprintf (stderr, "fuzz_decode: %s: %s: %s\n", what,
             err && err->code ? err->code : "-", err ? err->text : "-");
    abort ();
}

/* Cut data into frames at each separator; see the top of the file. */
static zmsg_t *
s_split (const uint8_t *data, size_t size)
{
    zmsg_t *zmsg = zmsg_new ();
    if (!zmsg)
        abort ();
    const uint8_t *start = data, *end = data + size;
    size_t seplen = strlen (s_separator);
    while (size > 0) {
        const uint8_t *sep = memmem (start, end - start, s_separator, seplen);
        const uint8_t *stop = sep ? sep : end;
        if (zmsg_addmem (zmsg, start, stop - start) != 0)
            abort ();
        if (!sep)
            break;
        start = sep + seplen;
    }
    return zmsg;
}

static bool
s_zmsg_equal (zmsg_t *a, zmsg_t *b)
{
    if (zmsg_size (a) != zmsg_size (b))
        return false;
    for (zframe_t *fa = zmsg_first (a), *fb = zmsg_first (b); fa && fb;
         fa = zmsg_next (a), fb = zmsg_next (b))
        if (!zframe_eq (fa, fb))
            return false;
    return true;
}

/* The encoder's printer gives cJSON's text (libcore/jsonprint.c). */
static void
s_same_text (const cJSON *body)
{
    char *want = cJSON_PrintUnformatted (body);
    hearth_jsonbuf_t buf;
    char stack[256];
    const char *got = hearth_json_print (body, &buf, stack, sizeof stack);
    if (!want || !got || strcmp (want, got) != 0)
        s_die ("hearth_json_print differs from cJSON_PrintUnformatted", NULL);
    hearth_jsonbuf_release (&buf);
    free (want);
}

/* Encode a decoded message, decode and encode it again: both must work,
   and give the same bytes. */
static void
s_round_trip (hearth_msg_t **msg_p)
{
    hearth_error_t err;
    zmsg_t *once = hearth_msg_encode (msg_p, &err);
    if (!once)
        s_die ("a decoded message does not encode", &err);
    zmsg_t *copy = zmsg_dup (once);
    hearth_msg_t *again = hearth_msg_decode (&copy, &err);
    if (!again)
        s_die ("a re-encoded message does not decode", &err);
    zmsg_t *twice = hearth_msg_encode (&again, &err);
    if (!twice)
        s_die ("a decoded re-encoded message does not encode", &err);
    if (!s_zmsg_equal (once, twice))
        s_die ("encoding is not stable after one round", NULL);
    zmsg_destroy (&once);
    zmsg_destroy (&twice);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    zmsg_t *zmsg = s_split (data, size);
    hearth_error_t err;
    hearth_error_clear (&err);
    hearth_msg_t *msg = hearth_msg_decode (&zmsg, &err);
    if (zmsg)
        s_die ("decode did not consume its message", NULL);
    if (!msg) {
        if (!err.code || !err.text[0])
            s_die ("a rejection without an error code and text", &err);
        return 0;
    }
    if (!hearth_cmd_name (msg->cmd) || !cJSON_IsObject (msg->body))
        s_die ("a decoded message is not well formed", NULL);
    s_same_text (msg->body);
    s_round_trip (&msg);
    return 0;
}
