/* SPDX-License-Identifier: MIT */
/* storage.h - the only storage/ header that api/ includes: errors, decimal
 * numbers, the order-preserving key codec, the table catalog and the
 * partitioned item store (one SQLite database per partition). */
#ifndef SHARDLOCAL_STORAGE_H
#define SHARDLOCAL_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* ------------------------------------------------------------------------
 * Errors. A fixed buffer, so reporting never allocates (jansson's
 * json_error_t). api/error.c maps each type to its wire name and status.
 * ---------------------------------------------------------------------- */

enum ddb_errtype {
    DDB_OK = 0,
    DDB_VALIDATION,                 /* ValidationException */
    DDB_SERIALIZATION,              /* SerializationException */
    DDB_UNKNOWN_OPERATION,          /* UnknownOperationException */
    DDB_RESOURCE_NOT_FOUND,         /* ResourceNotFoundException */
    DDB_RESOURCE_IN_USE,            /* ResourceInUseException */
    DDB_LIMIT_EXCEEDED,             /* LimitExceededException */
    DDB_CONDITIONAL_CHECK_FAILED,   /* ConditionalCheckFailedException */
    DDB_THROUGHPUT_EXCEEDED,        /* ProvisionedThroughputExceededException */
    DDB_THROTTLING,                 /* ThrottlingException */
    DDB_REQUEST_LIMIT_EXCEEDED,     /* RequestLimitExceeded */
    DDB_ITEM_COLLECTION_SIZE_LIMIT, /* ItemCollectionSizeLimit...Exception */
    DDB_TRANSACTION_CANCELED,       /* TransactionCanceledException */
    DDB_TRANSACTION_CONFLICT,       /* TransactionConflictException */
    DDB_TRANSACTION_IN_PROGRESS,    /* TransactionInProgressException */
    DDB_IDEMPOTENT_MISMATCH,        /* IdempotentParameterMismatchException */
    DDB_DUPLICATE_ITEM,             /* DuplicateItemException (PartiQL) */
    DDB_MISSING_AUTH_TOKEN,         /* MissingAuthenticationTokenException */
    DDB_INCOMPLETE_SIGNATURE,       /* IncompleteSignatureException */
    DDB_INVALID_SIGNATURE,          /* InvalidSignatureException */
    DDB_UNRECOGNIZED_CLIENT,        /* UnrecognizedClientException */
    DDB_ACCESS_DENIED,              /* AccessDeniedException */
    DDB_EXPIRED_ITERATOR,           /* ExpiredIteratorException (Streams) */
    DDB_TRIMMED_DATA,               /* TrimmedDataAccessException */
    DDB_HTTP_NOT_FOUND,             /* 404 for a path/method we do not serve */
    DDB_REQUEST_TOO_LARGE,          /* 413 body over 16 MB */
    DDB_HTTP_BAD_REQUEST,           /* 400 malformed HTTP framing */
    DDB_HTTP_FORBIDDEN,             /* 403 admin call from another origin */
    DDB_HTTP_UNSUPPORTED_MEDIA,     /* 415 admin call that is not JSON */
    DDB_SERVICE_UNAVAILABLE,        /* 503 ServiceUnavailable */
    DDB_INTERNAL,                   /* InternalServerError (500) */
    DDB_STORAGE_FULL,               /* InternalServerError (500): the disk
                                       holding the data is full */
    /* The backup, restore and resource-policy families' own codes. */
    DDB_TABLE_NOT_FOUND,            /* TableNotFoundException */
    DDB_TABLE_ALREADY_EXISTS,       /* TableAlreadyExistsException */
    DDB_TABLE_IN_USE,               /* TableInUseException */
    DDB_BACKUP_NOT_FOUND,           /* BackupNotFoundException */
    DDB_BACKUP_IN_USE,              /* BackupInUseException */
    DDB_POLICY_NOT_FOUND,           /* PolicyNotFoundException */
    DDB_GLOBAL_TABLE_NOT_FOUND,     /* GlobalTableNotFoundException */
    DDB_PITR_UNAVAILABLE,           /* PointInTimeRecoveryUnavailable... */
    DDB_INVALID_RESTORE_TIME,       /* InvalidRestoreTimeException */
    DDB_CONTINUOUS_BACKUPS_UNAVAILABLE, /* ContinuousBackupsUnavailable... */
    /* The export and import families' own codes. */
    DDB_EXPORT_NOT_FOUND,           /* ExportNotFoundException */
    DDB_EXPORT_CONFLICT,            /* ExportConflictException */
    DDB_IMPORT_NOT_FOUND,           /* ImportNotFoundException */
    DDB_IMPORT_CONFLICT,            /* ImportConflictException */
    DDB_INVALID_EXPORT_TIME,        /* InvalidExportTimeException */
    DDB_ERRTYPE_COUNT
};

#define DDB_ERR_MSG_MAX 4096

struct ddb_err {
    enum ddb_errtype type;
    char msg[DDB_ERR_MSG_MAX];
    json_t *extra;                  /* owned: modeled fields merged into the
                                       error body (Item, CancellationReasons,
                                       ThrottlingReasons); NULL if none */
};

/* Fill err (printf-style message) and return -1, so a failure is one line.
 * err may be NULL. */
int ddb_err_set(struct ddb_err *err, enum ddb_errtype type, const char *fmt,
                ...) __attribute__((format(printf, 3, 4)));
void ddb_err_init(struct ddb_err *err);
/* Release err->extra and reset to DDB_OK. */
void ddb_err_clear(struct ddb_err *err);
/* Attach a modeled field to the error body (takes val). */
void ddb_err_extra_set_new(struct ddb_err *err, const char *key, json_t *val);

/* ------------------------------------------------------------------------
 * Decimal numbers (storage/number.c). DynamoDB numbers: up to 38
 * significant digits, magnitude 1E-130 .. 9.99..E+125, or zero. All
 * numbers in stored items are in canonical text form: no exponent, no
 * leading zeros, no trailing fractional zeros, "-" only for negatives,
 * "0" for zero (e.g. "1E+2" -> "100", "-0.50" -> "-0.5", "1e-3" -> "0.001").
 * ---------------------------------------------------------------------- */

#define NUM_MAX_DIGITS 38
#define NUM_TEXT_MAX   192          /* longest canonical text + NUL */
#define NUM_KEY_MAX    48           /* longest sortable encoding */

/* Parse text (JSON string value of an N), check DynamoDB's limits and
 * write the canonical form to out (NUM_TEXT_MAX bytes). Returns 0, or -1
 * with a ValidationException carrying DynamoDB's message for the failure
 * (not a number, more than 38 significant digits, overflow, underflow). */
int num_canonical(const char *text, char *out, struct ddb_err *err);
/* Compare two canonical numbers: <0, 0, >0. */
int num_cmp(const char *a, const char *b);
/* out = a + b, or a - b, exactly; canonical in, canonical out. -1 with a
 * ValidationException when the result leaves DynamoDB's range or needs more
 * than 38 significant digits. */
int num_add(const char *a, const char *b, char *out, struct ddb_err *err);
int num_sub(const char *a, const char *b, char *out, struct ddb_err *err);
/* Bytes a canonical number counts toward item size (throttling.md 2). */
size_t num_size(const char *canon);
/* Order-preserving byte encoding of a canonical number: memcmp order of
 * the encodings equals numeric order. Returns the length (<= NUM_KEY_MAX). */
size_t num_sortkey(const char *canon, uint8_t *out);
/* The inverse of num_sortkey(): canonical text of an encoded number into
 * out (NUM_TEXT_MAX bytes). Returns 0, or -1 if key is not an encoding. */
int num_from_sortkey(const uint8_t *key, size_t len, char *out);
/* What DynamoDB hashes for a number partition key, from num_sortkey()'s
 * encoding (its internal base-100 decimal form) into out (NUM_HASH_MAX
 * bytes). Returns the length, or 0 if key is not an encoding. */
#define NUM_HASH_MAX 24
size_t num_hashkey(const uint8_t *key, size_t len, uint8_t *out);

/* ------------------------------------------------------------------------
 * Keys (storage/item_codec.c). A key attribute is S, N or B; its value is
 * encoded to bytes whose unsigned memcmp order is DynamoDB's order:
 * S = UTF-8 bytes, B = raw bytes, N = num_sortkey(). The partition key is
 * hashed the way DynamoDB hashes it (key_pk_hash) to place the item.
 * ---------------------------------------------------------------------- */

#define KEY_BYTES_MAX 2048

struct item_key {
    uint8_t hash[16];               /* key_pk_hash of the partition key */
    uint8_t pk[KEY_BYTES_MAX];
    size_t pk_len;
    uint8_t sk[KEY_BYTES_MAX];      /* empty when the table has no sort key */
    size_t sk_len;
};

/* Encode one key AttributeValue ({"S": ...}, {"N": ...} or {"B": ...},
 * already validated, N canonical, B still base64) into out (KEY_BYTES_MAX).
 * Returns the length, or -1 if av is not a valid key value. */
long key_encode_value(const json_t *av, uint8_t *out);
/* DynamoDB's hash of a partition key encoded as key_encode_value() does,
 * of type 'S', 'N' or 'B' (0: the bytes as they are): MD5 of the prefix
 * "Outliers" and the key's bytes in DynamoDB's form. */
void key_pk_hash(char type, const uint8_t *pk, size_t pk_len,
                 uint8_t out[16]);
/* Fill k->pk/k->hash from the encoded partition key of type pk_type
 * (key_pk_hash) and k->sk from the encoded sort key (sk may be NULL). */
void key_set(struct item_key *k, char pk_type, const uint8_t *pk,
             size_t pk_len, const uint8_t *sk, size_t sk_len);
/* First 64 bits of the key hash, big-endian: the position on the ring. */
uint64_t key_hash64(const uint8_t hash[16]);

/* Base64, standard alphabet, padded (storage/item_codec.c): the one
 * codec behind B values. item_b64_val() is one character's value or -1;
 * item_b64_len() the decoded length of validated text; item_b64_decode()
 * writes at most cap bytes into out and returns the length, or -1 if the
 * text is malformed or longer than cap. */
int item_b64_val(unsigned char c);
size_t item_b64_len(const char *s, size_t len);
long item_b64_decode(const char *s, size_t len, uint8_t *out, size_t cap);
/* The encoder: n bytes as padded base64 text in out (4 * ((n + 2) / 3) + 1
 * bytes, NUL-terminated). */
void item_b64_encode(const uint8_t *p, size_t n, char *out);

/* ------------------------------------------------------------------------
 * The store (storage/store.c, catalog.c, table.c, partmap.c, partition.c).
 *
 * A table has N partitions; partition i owns the hash range
 * [start_i, start_{i+1}) of the top 64 bits of key_pk_hash(pk). Each
 * partition is its own SQLite database (WAL) under the data directory, or
 * an in-memory database with --in-memory: same code path. Rows are
 * (h BLOB, pk BLOB, sk BLOB, size INT, item TEXT), PRIMARY KEY (h, pk, sk),
 * so scan order is hash order, then sort key.
 *
 * Items cross this interface as jansson objects in wire form
 * ({"attr": {"S": "x"}, ...}); storage keeps them as compact JSON text.
 * A table's description (json object) is persisted in the catalog; storage
 * does not interpret it.
 * ---------------------------------------------------------------------- */

struct storage;
struct stable;                      /* an open table: refcounted handle */

/* What an acknowledged write survives (--durability). */
enum storage_durability {
    STORAGE_DURABLE_PROCESS = 0,    /* a crash of the server (kill -9):
                                       WAL, synchronous=NORMAL */
    STORAGE_DURABLE_POWER           /* also an OS crash or power cut: every
                                       commit is fsynced (synchronous=FULL,
                                       new files' directories synced) */
};

struct storage_opts {
    enum storage_durability durability;
    uint64_t disk_reserve;          /* bytes kept in <data_dir>/RESERVE and
                                       given back when the disk is full, so
                                       DeleteTable can still run; 0: none */
    unsigned checkpoint_pages;      /* a partition whose WAL passes this
                                       many pages is checkpointed on a
                                       background thread; 0: by SQLite,
                                       inline, past 1,000 pages */
    const char *backup_dir;         /* where backups are kept (borrowed);
                                       NULL or "": <data_dir>/backups */
};

/* The text of a DDB_STORAGE_FULL error (no server paths in it). */
#define STORAGE_FULL_MSG "Internal server error: the server's disk is " \
    "full. Free space (DeleteTable frees a table's files) and retry."

/* Open the store. data_dir NULL means in-memory. Creates the directory
 * (mode 0700, files 0600, under the umask) and the catalog if missing and
 * reopens every table. opts NULL means the defaults (all zero). */
struct storage *storage_open_opts(const char *data_dir,
                                  const struct storage_opts *opts,
                                  struct ddb_err *err);
/* storage_open_opts() with the defaults. */
struct storage *storage_open(const char *data_dir, struct ddb_err *err);
void storage_close(struct storage *s);

/* A checkpoint (storage_opts.checkpoint_pages) holds one partition's
 * lock at a time, for milliseconds on a slow disk. Is one holding a lock
 * now, and is it k's partition's? Hints read without locks, for a server
 * that would rather serve other requests meanwhile: a request that goes
 * ahead may still find its partition held, and then waits as before. */
bool storage_checkpointing(struct storage *s);
bool stable_key_checkpointing(struct stable *t, const struct item_key *k);
/* Have fn(arg) called, on the checkpoint thread, each time a checkpoint
 * lets a partition go; fn NULL for none. Once this returns, an earlier fn
 * is neither running nor called again. */
void storage_on_checkpoint_done(struct storage *s, void (*fn)(void *),
                                void *arg);

/* Create a table with nparts partitions evenly spread over the hash ring.
 * desc is copied. ResourceInUseException if the name exists. */
int storage_table_create(struct storage *s, const char *name,
                         const json_t *desc, unsigned nparts,
                         struct ddb_err *err);
/* Look a table up; NULL (no error set) if absent. The caller releases the
 * handle with stable_release(). */
struct stable *storage_table_get(struct storage *s, const char *name);
void stable_release(struct stable *t);
/* Remove the table from the catalog and delete its files once the last
 * handle is released. -1 (ResourceNotFound not set: caller checks) if
 * absent. */
int storage_table_delete(struct storage *s, const char *name,
                         struct ddb_err *err);
/* Names of all tables in ascending byte order (new reference, array of
 * strings). */
json_t *storage_table_names(struct storage *s);

/* The table's description: a new reference to a deep copy (caller frees). */
json_t *stable_desc(struct stable *t);
/* Replace the description (copied) and persist it. */
int stable_set_desc(struct stable *t, const json_t *desc, struct ddb_err *err);
const char *stable_name(const struct stable *t);

/* Partitions. */
unsigned stable_nparts(struct stable *t);
/* Index of the partition that owns hash. */
unsigned stable_part_of(struct stable *t, const uint8_t hash[16]);
/* First hash (top 64 bits) owned by partition i. */
uint64_t stable_part_start(struct stable *t, unsigned i);
/* Live count and total item bytes (sum of sizes) over all partitions. */
int stable_stats(struct stable *t, uint64_t *count, uint64_t *bytes,
                 struct ddb_err *err);

/* Read one item. *item is a new reference, or NULL if absent. */
int stable_get(struct stable *t, const struct item_key *k, json_t **item,
               struct ddb_err *err);
/* One item as stored: its JSON text (*text a copy the caller frees,
 * NUL-terminated, *len bytes; NULL if absent), the same value stable_get
 * parses, and its stored size. For a reply that sends the item whole. */
int stable_get_text(struct stable *t, const struct item_key *k, char **text,
                    size_t *len, size_t *size, struct ddb_err *err);
/* The stored size of one item (what it counts toward capacity), 0 if
 * absent, without parsing it: e.g. what a delete will cost. */
int stable_size_of(struct stable *t, const struct item_key *k, size_t *size,
                   struct ddb_err *err);

/*
 * Atomic read-modify-write of one item. With the key's partition locked and
 * a SQLite transaction open, fn is called with the current item (borrowed,
 * NULL if absent) and its stored size (0 if absent). fn sets *new_item to
 * a new reference to store (with its size in *new_size), or leaves it
 * NULL to delete the item, or sets *keep to true to leave the row
 * untouched. If fn returns -1 (err set, e.g. ConditionalCheckFailed),
 * nothing is written and stable_mutate returns -1. A successful return
 * means SQLite has committed.
 */
typedef int stable_mutate_fn(void *arg, const json_t *old, size_t old_size,
                             json_t **new_item, size_t *new_size, bool *keep,
                             struct ddb_err *err);
int stable_mutate(struct stable *t, const struct item_key *k,
                  stable_mutate_fn *fn, void *arg, struct ddb_err *err);
/* stable_mutate() for a write that does not look at the item it replaces
 * (a PutItem or DeleteItem without condition or ReturnValues): unless the
 * table's change log records the image, fn gets an empty map standing for
 * an existing item, with its stored size, and the item is neither read
 * nor decoded. */
int stable_mutate_blind(struct stable *t, const struct item_key *k,
                        stable_mutate_fn *fn, void *arg,
                        struct ddb_err *err);

/* Who made a change, as the change log records it (a TTL delete is the
 * service's). */
enum storage_origin { STORAGE_ORIGIN_REQUEST = 0, STORAGE_ORIGIN_SERVICE = 1 };
/* stable_mutate() with the origin the change log records. */
int stable_mutate_as(struct stable *t, const struct item_key *k,
                     enum storage_origin origin, stable_mutate_fn *fn,
                     void *arg, struct ddb_err *err);

/* Row callback for query and scan: k and item are borrowed for the call.
 * Return 0 to go on, 1 to stop, -1 to abort with err set. */
typedef int stable_row_fn(void *arg, const struct item_key *k,
                          const json_t *item, size_t size,
                          struct ddb_err *err);

/* Row callback for stable_query_rows and stable_scan_rows: the item as
 * stored, compact JSON text of len bytes (NUL after it), unparsed; k and
 * text are borrowed for the call. Returns as stable_row_fn does. */
typedef int stable_text_fn(void *arg, const struct item_key *k,
                           const char *text, size_t len, size_t size,
                           struct ddb_err *err);

/* Where the rows of a query or scan go: fn gets each parsed, or text,
 * when set, gets its stored text instead. */
struct stable_rows {
    stable_row_fn *fn;
    stable_text_fn *text;
    void *arg;
};

/* Sort-key range for query; a NULL bound is unbounded. */
struct sk_range {
    const uint8_t *lo;
    size_t lo_len;
    bool lo_incl;
    const uint8_t *hi;
    size_t hi_len;
    bool hi_incl;
    const uint8_t *prefix;          /* begins_with: sk starts with these */
    size_t prefix_len;
};

/* Visit the items of one partition key (pk, hashed to hash by key_set) in
 * sort-key order (reverse when !forward), restricted to r (may be NULL),
 * starting after the sort key start (exclusive; NULL to start at the
 * beginning). */
int stable_query(struct stable *t, const uint8_t hash[16], const uint8_t *pk,
                 size_t pk_len,
                 const struct sk_range *r, bool forward,
                 const uint8_t *start, size_t start_len,
                 stable_row_fn *fn, void *arg, struct ddb_err *err);

/* Visit the items whose top-64 hash lies in [lo, hi] (inclusive) in scan
 * order (h, pk, sk), starting after key start (exclusive; NULL for the
 * beginning). Spans partitions as needed. */
int stable_scan(struct stable *t, uint64_t lo, uint64_t hi,
                const struct item_key *start,
                stable_row_fn *fn, void *arg, struct ddb_err *err);
/* A stored item's text (a stable_text_fn's) parsed: a new reference, or
 * NULL with err set. */
json_t *stable_item_parse(const char *text, size_t len, struct ddb_err *err);
/* stable_query and stable_scan with the rows going to rows (their stored
 * text when rows->text is set: a reply that sends items as stored). */
int stable_query_rows(struct stable *t, const uint8_t hash[16],
                      const uint8_t *pk, size_t pk_len,
                      const struct sk_range *r, bool forward,
                      const uint8_t *start, size_t start_len,
                      const struct stable_rows *rows, struct ddb_err *err);
int stable_scan_rows(struct stable *t, uint64_t lo, uint64_t hi,
                     const struct item_key *start,
                     const struct stable_rows *rows, struct ddb_err *err);


/*
 * Like stable_desc() but without the deep copy: a new reference to the
 * current description, which the store never mutates (stable_set_desc
 * installs a new object). Read-only for the caller.
 */
json_t *stable_desc_ref(struct stable *t);

/* Live count and total size of partition i alone (e.g. to decide a split
 * on size). -1 with err set if there is no partition i. */
int stable_part_stats(struct stable *t, unsigned i, uint64_t *count,
                      uint64_t *bytes, struct ddb_err *err);

/*
 * Split partition i of t in two at the middle of its hash range: two new
 * partition files get its rows, the catalog's partition list is replaced
 * in one transaction, and the layout is swapped; requests in flight retry
 * on the new layout. A crash at any point leaves either the old or the new
 * list in the catalog; unreferenced files are removed at the next open.
 * Partition indexes above i shift by one. -1 with err set on failure (the
 * table is then unchanged), e.g. when the range holds a single position.
 */
int stable_split(struct stable *t, unsigned i, struct ddb_err *err);
/* The same at ring position at (0: the middle): partition i keeps
 * [start, at), the new one gets [at, end]. -1 with err if at is not inside
 * (start, end]. */
int stable_split_at(struct stable *t, unsigned i, uint64_t at,
                    struct ddb_err *err);

/*
 * Data directories written before rows were placed by DynamoDB's key hash
 * (key_pk_hash): stable_needs_rehash() tells whether t's rows are still
 * placed by the old hash, and stable_rehash() re-places every row of t by
 * the hash of its partition key of type pk_type ('S', 'N', 'B', 0 for the
 * bytes as they are), crash-safe as a split is. Run before serving t.
 */
bool stable_needs_rehash(struct stable *t);
int stable_rehash(struct stable *t, char pk_type, struct ddb_err *err);

/*
 * Backups (storage/backup.c): a consistent copy of a set of tables (a
 * table and its hidden index tables), kept until deleted, whatever happens
 * to the tables, and across restarts. key names it; meta (copied) is the
 * caller's and opaque here. The entries of storage_backup_list() (oldest
 * first, a new array) and storage_backup_get() (a new reference, NULL when
 * there is no such backup) are {"key", "meta", "members": [{"name",
 * "items", "bytes", "files"}]}: per table copied, its name, item count and
 * bytes (sum of sizes) in the copy.
 *
 * storage_backup_create copies tables[0..n) (borrowed handles) without
 * stopping their writes: each partition is copied with SQLite's online
 * backup, a few pages per lock, and the last pages of all of them with
 * every partition locked at once, so the copy is one consistent cut (a
 * transaction is in all of it or in none). The backup exists once its
 * files are durable and the catalog names it: a crash before that leaves
 * no backup, and the next open removes its files. -1 with err on failure
 * (nothing kept).
 *
 * storage_backup_restore creates table name (desc copied) over nparts
 * partitions holding the items of the backup's table member: they are
 * loaded before the catalog names the table, so a crash leaves it whole
 * or absent. Items only: other rows a partition keeps (a change log) are
 * not restored. Errors as storage_table_create, and DDB_RESOURCE_NOT_FOUND
 * when there is no such backup (also from storage_backup_delete).
 */
int storage_backup_create(struct storage *s, const char *key,
                          struct stable *const *tables, size_t n,
                          const json_t *meta, struct ddb_err *err);
json_t *storage_backup_list(struct storage *s);
json_t *storage_backup_get(struct storage *s, const char *key);
int storage_backup_delete(struct storage *s, const char *key,
                          struct ddb_err *err);
int storage_backup_restore(struct storage *s, const char *key,
                           const char *member, const char *name,
                           const json_t *desc, unsigned nparts,
                           struct ddb_err *err);

/*
 * What point-in-time recovery builds on (storage/backup.c).
 * storage_backup_scan visits the items of table member of backup key
 * (fn as stable_scan's, in no particular order; DDB_RESOURCE_NOT_FOUND
 * when there is no such backup). storage_table_create_rows creates table
 * name (desc copied) over nparts partitions holding what fn puts with
 * storage_rows_put() (a row put twice keeps the last): loaded before the
 * catalog names the table, so a crash leaves it whole or absent.
 */
int storage_backup_scan(struct storage *s, const char *key,
                        const char *member, stable_row_fn *fn, void *arg,
                        struct ddb_err *err);
struct storage_rows;
typedef int storage_rows_fn(void *arg, struct storage_rows *rows,
                            struct ddb_err *err);
int storage_rows_put(struct storage_rows *rows, const struct item_key *k,
                     const json_t *item, size_t size, struct ddb_err *err);
int storage_table_create_rows(struct storage *s, const char *name,
                              const json_t *desc, unsigned nparts,
                              storage_rows_fn *fn, void *arg,
                              struct ddb_err *err);

/*
 * Snapshots: backups whose key starts with STORAGE_SNAPSHOT_PREFIX are a
 * caller's private, passing copies (an export's consistent cut, read back
 * with storage_backup_scan): created and deleted as backups are, but
 * storage_backup_list() leaves them out and the next open deletes any a
 * crash left.
 */
#define STORAGE_SNAPSHOT_PREFIX "~snapshot/"
/* Create path and its missing parents (mode 0700 under the umask); -1
 * with err set on failure. The message names no path: it may reach a
 * client. (Also for api/'s own files: exports.) */
int storage_mkdir_p(const char *path, struct ddb_err *err);

/*
 * Multi-item transactions across partitions and tables (storage/txn.c).
 * stable_txn locks every partition involved (in one global order, so
 * concurrent transactions cannot deadlock), calls each op's fn with the
 * current item exactly as stable_mutate does, and, only if every fn
 * returned 0, commits all the writes atomically: the after-images are
 * first made durable in a journal in the catalog, then applied to each
 * partition, then the journal entry is dropped; storage_open replays any
 * journal entry left by a crash. Readers and single-item writers, which
 * take the same partition locks, never see half a transaction.
 * If any fn fails, nothing is written, every op's outcome is left in
 * ops[i].rc / ops[i].err (all fns are called, so every cancellation reason
 * is known) and stable_txn returns -1 with err set to the first failure.
 * The same key twice in one call is the caller's error to reject first.
 */
struct stxn_op {
    struct stable *t;               /* borrowed handle */
    struct item_key k;
    stable_mutate_fn *fn;           /* NULL: read-only (lock and check) */
    void *arg;
    enum storage_origin origin;     /* who makes the change (change log) */
    int rc;                         /* out: fn's return */
    struct ddb_err err;             /* out: fn's error (caller clears) */
};
int stable_txn(struct stxn_op *ops, size_t n, struct ddb_err *err);

/* Read several items under one consistent snapshot: all partitions locked
 * together, then each *items[i] is a new reference or NULL. */
int stable_txn_get(struct stable *const *tables,
                   const struct item_key *const *keys, size_t n,
                   json_t **items, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * The change log (storage/changelog.c; docs/design.md, "The change log").
 *
 * While logging is on for a table, every change to one of its items is
 * recorded in the partition's database, in the SQLite transaction that
 * makes it: a sequence number (one counter per table, increasing in
 * commit order within a partition), the time on the store's clock, the
 * origin, and the item before and after. Writes that leave the item as it
 * was record nothing. Sequence numbers also mark partition births and
 * retirements (splits) and each switch of logging, so ranges of them
 * describe a partition's lifetime and a stream's. A split copies the
 * parent's log into its first child (the one starting at the same ring
 * position): the log of any partition, live or retired, is read from the
 * live partition that starts where it started.
 * ---------------------------------------------------------------------- */

/* The clock records and births are stamped with (ms): the server's, so
 * that a virtual clock moves the log too. Default: the wall clock. */
typedef uint64_t storage_clock_fn(void *arg);
void storage_set_clock(struct storage *s, storage_clock_fn *fn, void *arg);

/* Is t logging its changes? */
bool stable_log_on(struct stable *t);
/* The last sequence number t has taken. */
uint64_t stable_log_seq(struct stable *t);

/*
 * Turn t's logging on or off, atomically with a new description: with
 * every partition of t locked (no write in flight), take a marker
 * sequence number and a birth time (ms: the clock, but after every time t
 * gave before and at least min_ms), call fn with them for the new
 * description (a new reference, or NULL with err set to refuse), then
 * commit description and switch in one catalog transaction. A write is
 * logged if and only if it commits after a switch on and before the next
 * switch off.
 */
typedef json_t *stable_switch_fn(void *arg, uint64_t seq, uint64_t ms,
                                 struct ddb_err *err);
int stable_log_switch(struct stable *t, bool on, uint64_t min_ms,
                      stable_switch_fn *fn, void *arg, struct ddb_err *err);
/* storage_table_create() for a table that logs from its creation: fn
 * builds its description from the first marker and birth time. */
int storage_table_create_logged(struct storage *s, const char *name,
                                unsigned nparts, uint64_t min_ms,
                                stable_switch_fn *fn, void *arg,
                                struct ddb_err *err);

/* One partition in t's history: live, or retired by a split (and kept
 * until stable_log_trim() forgets it). */
struct spart {
    char id[17];                    /* the partition's id (hex) */
    char parent[17];                /* its parent's, "" for an original */
    uint64_t start;                 /* its first ring position */
    uint64_t born_seq, born_ms;     /* birth marker and time */
    uint64_t end_seq, end_ms;       /* retirement marker and time; 0 while
                                       live */
};
/* t's partitions, parents before children (*out: caller frees). */
int stable_part_history(struct stable *t, struct spart **out, size_t *n,
                        struct ddb_err *err);

/* One logged change, borrowed for the callback. */
struct slog_rec {
    uint64_t seq;                   /* its sequence number */
    uint64_t ms;                    /* when, on the store's clock */
    enum storage_origin origin;
    const json_t *old;              /* the item before; NULL: absent */
    const json_t *new_item;         /* the item after; NULL: deleted */
};
/* Return 0 to go on, 1 to stop, -1 to abort with err set. */
typedef int stable_log_fn(void *arg, const struct slog_rec *r,
                          struct ddb_err *err);
/*
 * Visit, in sequence order, the logged changes with after < seq <= upto
 * held by the partition of t whose log starts at ring position start
 * (struct spart.start). *trimmed receives the highest sequence number
 * trimmed from that log so far (0: none). -1 with err set on failure.
 */
int stable_log_read(struct stable *t, uint64_t start, uint64_t after,
                    uint64_t upto, stable_log_fn *fn, void *arg,
                    uint64_t *trimmed, struct ddb_err *err);
/* The newest sequence number of that log, taken with its partition
 * locked: every change committed there is at or below it, every later
 * one above (a LATEST position). */
uint64_t stable_log_tip(struct stable *t, uint64_t start);
/* Drop logged changes older than cutoff_ms (in sequence order, so the
 * trimmed part of a log is a prefix) and the history of partitions
 * retired before it. */
int stable_log_trim(struct stable *t, uint64_t cutoff_ms,
                    struct ddb_err *err);

/* Give table name the name new_name (a name no request can use, to keep
 * a deleted table's stream readable). ResourceInUseException if new_name
 * exists, ResourceNotFoundException if name does not. */
int storage_table_rename(struct storage *s, const char *name,
                         const char *new_name, struct ddb_err *err);

#endif
