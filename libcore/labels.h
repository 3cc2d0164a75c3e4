/*  labels.h - a worker's labels: KEY=VALUE pairs an operator gives it
    (hearth-worker --label rack=r1 --label disk=ssd), which tasks may
    prefer (a place "KEY=VALUE", issue 37) and whose "rack" gives the
    RACK_LOCAL level its meaning.  Held as a JSON object {KEY: VALUE}, as
    REGISTER_WORKER and EXECUTOR_ADDED carry them (docs/protocol.md).

    A key is 1 to 64 letters, digits, '_', '-' or '.', starting with a
    letter; a value 1 to 128 bytes without a control character, a comma
    (lists of labels are comma-separated) or a space; at most 32 labels.
*/
#ifndef HEARTH_LIBCORE_LABELS_H
#define HEARTH_LIBCORE_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"

#define HEARTH_LABELS_MAX 32
#define HEARTH_LABEL_KEY_MAX 64
#define HEARTH_LABEL_VALUE_MAX 128
/* The label that names a worker's rack. */
#define HEARTH_LABEL_RACK "rack"

/* Whether spec is "KEY=VALUE" by the rules above.  Returns 0, or -1 with
   err saying what is wrong with it. */
int hearth_labels_check_spec (const char *spec, hearth_error_t *err);

/* Add "KEY=VALUE" to labels (an object; a key given again takes the new
   value).  Returns 0, or -1 with err saying what is wrong with spec. */
int hearth_labels_add_spec (cJSON *labels, const char *spec,
                            hearth_error_t *err);

/* Whether labels (an object, or NULL: none) keeps the rules above.
   Returns 0, or -1 with err naming the first label that does not. */
int hearth_labels_check (const cJSON *labels, hearth_error_t *err);

/* Whether labels (NULL: none) carry every label of wanted (NULL or
   empty: nothing wanted), each with the same value. */
bool hearth_labels_carry (const cJSON *labels, const cJSON *wanted);

/* wanted as "KEY=VALUE,KEY=VALUE" into out (size bytes, cut to fit), for
   messages. */
void hearth_labels_text (const cJSON *wanted, char *out, size_t size);

/* labels as "KEY=VALUE" strings into out (room for HEARTH_LABELS_MAX,
   each of HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2 bytes);
   returns how many. */
size_t hearth_labels_specs (
    const cJSON *labels,
    char out[][HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2]);

#endif
