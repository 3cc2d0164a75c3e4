/*  resources.h - custom resources (GPUs, FPGAs, NICs...): their names,
    their addresses, the amounts an executor or a task asks for, and their
    three spellings (docs/resources.md):

      command line   --resource gpu=0,1,2,3        (a worker's addresses)
                     --executor-resource gpu=1     (an amount)
      discovery      {"name": "gpu", "addresses": ["0", "1"]}  (Spark's)
      wire (JSON)    {"gpu": ["0", "1"]}  addresses by name
                     {"gpu": 1}           amounts by name

    A name is 1 to HEARTH_RESOURCE_NAME_MAX characters of [A-Za-z0-9_.-]
    starting with a letter; an address 1 to HEARTH_RESOURCE_ADDR_MAX
    printable characters without space, comma, '=' or ';'.  Within one
    set names are unique and so are the addresses of one name.  Sets keep
    the order they were given in.

    Pure: no I/O (running a discovery script is the worker's).  Every
    function that fills a set leaves it unchanged on failure.
*/
#ifndef HEARTH_RESOURCES_H
#define HEARTH_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"

#define HEARTH_RESOURCE_NAME_MAX 32
#define HEARTH_RESOURCE_ADDR_MAX 64
#define HEARTH_RESOURCES_MAX 64        /* names in one set */
#define HEARTH_RESOURCE_ADDRS_MAX 1024 /* addresses of one name */
#define HEARTH_RESOURCE_AMOUNT_MAX 1024

/* One name's addresses. */
typedef struct {
    char *name;   /* owned */
    char **addrs; /* owned, naddrs owned strings */
    size_t naddrs;
} hearth_resource_t;

/* A set of addresses by name (a worker's, an executor's, a task's). */
typedef struct {
    hearth_resource_t *v; /* owned, n entries */
    size_t n;
} hearth_resources_t;

/* One name's amount. */
typedef struct {
    char *name; /* owned */
    int amount; /* 1..HEARTH_RESOURCE_AMOUNT_MAX */
} hearth_resource_amount_t;

/* Amounts by name (per executor, per task). */
typedef struct {
    hearth_resource_amount_t *v; /* owned, n entries */
    size_t n;
} hearth_resource_amounts_t;

bool hearth_resource_name_valid (const char *name);
bool hearth_resource_addr_valid (const char *addr);

/* ---- address sets -------------------------------------------------------- */

/* Add "NAME=ADDR[,ADDR...]" (a --resource value).  -1 with err on a bad
   name or address, an empty list, a name already in r, a repeated
   address, or too many. */
int hearth_resources_add_spec (hearth_resources_t *r, const char *spec,
                               hearth_error_t *err);
/* Add name's addresses from a discovery script's output (Spark's format:
   one JSON object {"name": NAME, "addresses": [...]}, surrounding white
   space allowed).  The object's name must be name. */
int hearth_resources_add_discovered (hearth_resources_t *r, const char *name,
                                     const char *output, hearth_error_t *err);
/* Add name with naddrs addresses (copied), checked as above. */
int hearth_resources_add (hearth_resources_t *r, const char *name,
                          const char *const *addrs, size_t naddrs,
                          hearth_error_t *err);
/* The entry of name, or NULL. */
const hearth_resource_t *hearth_resources_find (const hearth_resources_t *r,
                                                const char *name);
/* The set as the wire's object {"gpu": ["0", "1"]}; NULL on no memory. */
cJSON *hearth_resources_to_json (const hearth_resources_t *r);
/* Fill an empty r from the wire's object, every name and address checked;
   json NULL gives an empty set.  -1 with err. */
int hearth_resources_from_json (hearth_resources_t *r, const cJSON *json,
                                hearth_error_t *err);
/* "0,1,2": the addresses joined by commas (malloc'ed; NULL on no
   memory). */
char *hearth_resource_join (const hearth_resource_t *res);
/* "gpu=0,1" (malloc'ed; NULL on no memory): a --resource value. */
char *hearth_resource_spec (const hearth_resource_t *res);
/* The environment variable a task reads name's addresses from:
   HEARTH_RESOURCE_ then name upper-cased, '.' and '-' as '_'.  buf
   holds at least sizeof "HEARTH_RESOURCE_" + HEARTH_RESOURCE_NAME_MAX. */
#define HEARTH_RESOURCE_ENV_MAX                                                \
    (sizeof "HEARTH_RESOURCE_" + HEARTH_RESOURCE_NAME_MAX)
void hearth_resource_env_name (const char *name, char *buf, size_t len);
void hearth_resources_clear (hearth_resources_t *r);
/* Copy src (NULL: an empty set) into the empty dst.  -1 on no memory
   (dst stays empty). */
int hearth_resources_copy (hearth_resources_t *dst,
                           const hearth_resources_t *src);

/* ---- amounts ------------------------------------------------------------- */

/* Add "NAME=N" (an --executor-resource value, a job file's entry).  -1
   with err on a bad name, an amount outside 1..HEARTH_RESOURCE_AMOUNT_MAX,
   a name already in a, or too many. */
int hearth_resource_amounts_add_spec (hearth_resource_amounts_t *a,
                                      const char *spec, hearth_error_t *err);
int hearth_resource_amounts_add (hearth_resource_amounts_t *a, const char *name,
                                 int amount, hearth_error_t *err);
/* The amount of name, 0 when absent. */
int hearth_resource_amount (const hearth_resource_amounts_t *a,
                            const char *name);
/* {"gpu": 1}; NULL on no memory. */
cJSON *hearth_resource_amounts_to_json (const hearth_resource_amounts_t *a);
/* Fill an empty a from {"gpu": 1}; json NULL gives an empty set. */
int hearth_resource_amounts_from_json (hearth_resource_amounts_t *a,
                                       const cJSON *json, hearth_error_t *err);
/* Copy src into an empty dst.  -1 on no memory. */
int hearth_resource_amounts_copy (hearth_resource_amounts_t *dst,
                                  const hearth_resource_amounts_t *src);
void hearth_resource_amounts_clear (hearth_resource_amounts_t *a);

#endif
