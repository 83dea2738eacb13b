// Unit tests of server modules that need no network: the outbox (bounded, newest frame wins, reliable
// messages in order), value ids, the varint framing, the configuration (flags, environment, limits),
// the error table, log quoting, include masks, content addresses and the mesh format, the asset store.
#define _POSIX_C_SOURCE 200809L // setenv, unsetenv, open_memstream
#include "assets.h"
#include "config.h"
#include "content.h"
#include "errors.h"
#include "frame.h"
#include "idpool.h"
#include "log.h"
#include "model_registry.h"
#include "outbox.h"
#include "server.h"
#include "support.h"
#include "wire.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static outbox_msg* message_of(const char* text)
{
	size_t n = strlen(text);
	uint8_t* buffer = malloc(OUTBOX_MSG_HEADROOM + n);
	memcpy(buffer + OUTBOX_MSG_HEADROOM, text, n);
	return outbox_msg_adopt(buffer, n);
}

static frame_buf* frame_of(uint64_t tick, size_t size)
{
	frame_buf* f = frame_buf_new(size);
	memset(f->data, (int)tick, size);
	f->tick = tick;
	return f;
}

static void test_outbox_newest_frame_wins(void** state)
{
	(void)state;
	outbox box;
	outbox_init(&box);
	assert_true(outbox_add_slot(&box, 7));
	assert_true(outbox_add_slot(&box, 9));
	// A slow reader: ten frames offered to subscription 7, none taken. Only the newest is kept.
	for (uint64_t tick = 1; tick <= 10; ++tick)
	{
		frame_buf* f = frame_of(tick, 1000);
		bool replaced = outbox_offer_frame(&box, 7, f);
		assert_int_equal(replaced, tick > 1);
		frame_buf_unref(f); // the outbox holds its own reference
	}
	assert_int_equal(box.frames_dropped, 9);
	assert_int_equal(outbox_bytes(&box), 1000);
	// A reply pushed after the frames still goes out first.
	outbox_push(&box, message_of("reply"));
	outbox_item item;
	assert_true(outbox_pop(&box, &item));
	assert_non_null(item.msg);
	assert_memory_equal(item.body, "reply", 5);
	outbox_item_release(&item);
	// Then the newest frame, with its header: ServerMessage.state, subscription 7, dropped 9.
	assert_true(outbox_pop(&box, &item));
	assert_non_null(item.frame);
	assert_int_equal(item.frame->tick, 10);
	assert_int_equal(item.head[0], 0x12);
	uint64_t length = 0;
	int n = wire_varint_get(item.head + 1, item.head_size - 1, &length);
	assert_true(n > 0);
	assert_int_equal(length, item.head_size - 1 - (size_t)n + item.body_size);
	const uint8_t* fields = item.head + 1 + n;
	assert_int_equal(fields[0], 0x08);
	assert_int_equal(fields[1], 7);
	assert_int_equal(fields[2], 0x30);
	assert_int_equal(fields[3], 9);
	outbox_item_release(&item);
	assert_false(outbox_pop(&box, &item));
	assert_true(outbox_is_empty(&box));
	// Removing a slot drops its frame; offering to a removed slot does nothing.
	frame_buf* f = frame_of(11, 10);
	outbox_offer_frame(&box, 9, f);
	outbox_remove_slot(&box, 9);
	assert_false(outbox_offer_frame(&box, 9, f));
	assert_int_equal(f->refs, 1);
	frame_buf_unref(f);
	outbox_clear(&box);
}

static void test_outbox_reliable_order_and_round_robin(void** state)
{
	(void)state;
	outbox box;
	outbox_init(&box);
	const char* texts[] = { "one", "two", "three" };
	for (int i = 0; i < 3; ++i)
	{
		outbox_push(&box, message_of(texts[i]));
	}
	assert_int_equal(box.reliable_bytes, 11);
	for (int i = 0; i < 3; ++i)
	{
		outbox_item item;
		assert_true(outbox_pop(&box, &item));
		assert_memory_equal(item.body, texts[i], strlen(texts[i]));
		outbox_item_release(&item);
	}
	assert_int_equal(box.reliable_bytes, 0);
	// Frames of several subscriptions take turns.
	for (uint64_t s = 1; s <= 3; ++s)
	{
		outbox_add_slot(&box, s);
	}
	int seen[4] = { 0 };
	for (int round = 0; round < 6; ++round)
	{
		for (uint64_t s = 1; s <= 3; ++s)
		{
			frame_buf* f = frame_of((uint64_t)round, 4);
			outbox_offer_frame(&box, s, f);
			frame_buf_unref(f);
		}
		outbox_item item;
		assert_true(outbox_pop(&box, &item));
		seen[item.head[3]] += 1; // subscription id (after tag 0x12, length, 0x08)
		outbox_item_release(&item);
	}
	assert_int_equal(seen[1], 2);
	assert_int_equal(seen[2], 2);
	assert_int_equal(seen[3], 2);
	outbox_clear(&box);
}

static void test_idpool_rejects_stale_ids(void** state)
{
	(void)state;
	idpool pool;
	idpool_init(&pool);
	int a = 1, b = 2, c = 3;
	uint64_t ia = idpool_add(&pool, &a);
	uint64_t ib = idpool_add(&pool, &b);
	assert_true(ia != 0 && ib != 0 && ia != ib);
	assert_ptr_equal(idpool_get(&pool, ia), &a);
	assert_ptr_equal(idpool_remove(&pool, ia), &a);
	assert_null(idpool_get(&pool, ia));
	assert_null(idpool_remove(&pool, ia));
	// The slot is reused with a new generation: the old id stays dead.
	uint64_t ic = idpool_add(&pool, &c);
	assert_int_equal(ic >> 32, ia >> 32);
	assert_true(ic != ia);
	assert_null(idpool_get(&pool, ia));
	assert_ptr_equal(idpool_get(&pool, ic), &c);
	assert_null(idpool_get(&pool, 0));
	assert_null(idpool_get(&pool, 0xffffffff00000001ull));
	assert_int_equal(pool.count, 2);
	idpool_free(&pool);
}

// Restored worlds take back their ids: the slot and generation given, the slots below it free for later
// worlds, a taken slot or an index past the bound refused.
static void test_idpool_add_at(void** state)
{
	(void)state;
	idpool pool;
	idpool_init(&pool);
	int a = 1, b = 2, c = 3, d = 4;
	uint64_t at = (5ull << 32) | 77u; // slot 4, generation 77
	assert_int_equal(idpool_add_at(&pool, at, &a, 16), at);
	assert_ptr_equal(idpool_get(&pool, at), &a);
	assert_int_equal(idpool_add_at(&pool, at, &b, 16), 0);                                // taken
	assert_int_equal(idpool_add_at(&pool, (17ull << 32) | 1u, &b, 16), 0);                // index past the bound
	assert_int_equal(idpool_add_at(&pool, 5ull << 32, &b, 16), 0);                        // generation 0 is no id
	assert_int_equal(idpool_add_at(&pool, (2ull << 32) | 9u, &b, 16), (2ull << 32) | 9u); // a free slot below
	// New items fill the other free slots (0, 2, 3), never the restored ones.
	for (int i = 0; i < 3; ++i)
	{
		uint64_t id = idpool_add(&pool, i == 0 ? &c : &d);
		assert_true(id != 0 && (id >> 32) != 5 && (id >> 32) != 2);
	}
	assert_int_equal(pool.count, 5);
	assert_ptr_equal(idpool_remove(&pool, at), &a);
	assert_int_equal(idpool_add(&pool, &a) >> 32, 5); // the slot is free again
	idpool_free(&pool);
}

static void test_varints(void** state)
{
	(void)state;
	uint8_t b[WIRE_VARINT_MAX + 2];
	const uint64_t values[] = { 0, 1, 127, 128, 300, 16383, 16384, 0xffffffffull, UINT64_MAX };
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); ++i)
	{
		size_t n = wire_varint_put(b, values[i]);
		uint64_t back = 0;
		assert_int_equal(wire_varint_get(b, n, &back), (int)n);
		assert_true(back == values[i]);
		// Every shorter prefix asks for more bytes.
		for (size_t k = 0; k < n; ++k)
		{
			assert_int_equal(wire_varint_get(b, k, &back), 0);
		}
	}
	assert_int_equal(wire_varint_put(b, UINT64_MAX), 10);
	// Eleven continuation bytes, or a tenth byte above 1, are malformed.
	memset(b, 0xff, sizeof(b));
	uint64_t v = 0;
	assert_int_equal(wire_varint_get(b, sizeof(b), &v), -1);
	memset(b, 0x80, 9);
	b[9] = 0x02;
	assert_int_equal(wire_varint_get(b, 10, &v), -1);
}

static void test_config(void** state)
{
	(void)state;
	server_config c;
	config_default(&c);
	assert_string_equal(c.host, "127.0.0.1");
	assert_int_equal(c.tcp_port, 7420);
	assert_int_equal(c.ws_port, 7421);
	assert_true(c.demo);
	char error[256];
	setenv("SINEW_TCP_PORT", "9000", 1);
	setenv("SINEW_MAX_CONNECTIONS", "12", 1);
	assert_true(config_from_env(&c, error, sizeof(error)));
	assert_int_equal(c.tcp_port, 9000);
	assert_int_equal(c.limits.max_connections, 12);
	// Flags win over the environment.
	char* argv[] = { "sinewd", "--tcp-port", "0", "--max-connections=5", "--no-demo", "--log-level", "warn", NULL };
	assert_int_equal(config_from_args(&c, 7, argv, stdout, error, sizeof(error)), 0);
	assert_int_equal(c.tcp_port, 0);
	assert_int_equal(c.limits.max_connections, 5);
	assert_false(c.demo);
	assert_int_equal(c.log_level, LOG_WARN);
	// Bad values are refused with a reason.
	char* bad_port[] = { "sinewd", "--ws-port", "70000", NULL };
	assert_int_equal(config_from_args(&c, 3, bad_port, stdout, error, sizeof(error)), -1);
	assert_non_null(strstr(error, "port"));
	char* bad_limit[] = { "sinewd", "--max-message-bytes", "10", NULL };
	assert_int_equal(config_from_args(&c, 3, bad_limit, stdout, error, sizeof(error)), -1);
	assert_non_null(strstr(error, "max-message-bytes"));
	char* unknown[] = { "sinewd", "--frobnicate", NULL };
	assert_int_equal(config_from_args(&c, 2, unknown, stdout, error, sizeof(error)), -1);
	setenv("SINEW_LOG_LEVEL", "loud", 1);
	assert_false(config_from_env(&c, error, sizeof(error)));
	unsetenv("SINEW_LOG_LEVEL");
	unsetenv("SINEW_TCP_PORT");
	unsetenv("SINEW_MAX_CONNECTIONS");
	// --help documents every option and limit.
	char* buffer = NULL;
	size_t size = 0;
	FILE* out = open_memstream(&buffer, &size);
	char* help[] = { "sinewd", "--help", NULL };
	assert_int_equal(config_from_args(&c, 2, help, out, error, sizeof(error)), 1);
	fclose(out);
	const char* expected[] = { "--host",
							   "--tcp-port",
							   "--ws-port",
							   "--port-file",
							   "--token",
							   "--web-root",
							   "--no-demo",
							   "--log-level",
							   "--workers",
							   "--max-message-bytes",
							   "--max-connections",
							   "--max-worlds-per-client",
							   "--max-bodies-per-world",
							   "--max-subscriptions-per-client",
							   "--max-requests-in-flight",
							   "SINEW_MAX_OUTBOX_BYTES",
							   "SINEW_TOKEN" };
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i)
	{
		if (strstr(buffer, expected[i]) == NULL)
		{
			fail_msg("--help does not mention %s", expected[i]);
		}
	}
	free(buffer);
}

// Who a client is, for the per-client limits: an IPv6 host is given a /64, so its /64 is the client (one
// address each would leave it 2^64 clients); an IPv4-mapped address is the IPv4 client it is.
static void test_client_addresses(void** state)
{
	(void)state;
	static const char* const cases[][2] = {
		{ "1.2.3.4", "1.2.3.4" },
		{ "::ffff:127.0.0.1", "127.0.0.1" },
		{ "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64" },
		{ "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64" },
		{ "::1", "::/64" },
		{ "unknown", "unknown" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		char out[64];
		server_client_of(cases[i][0], out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
}

// The registry's index: every entry is found by (kind, object) after growth, replacement, forgetting
// (which moves the others) and copying, and kinds with the same object stay apart.
static void test_model_registry_index(void** state)
{
	(void)state;
	model_registry r;
	memset(&r, 0, sizeof(r));
	const int n = 5000;
	for (int i = 0; i < n; ++i)
	{
		for (int kind = MODEL_URDF; kind <= MODEL_SHAPE_MESH; ++kind)
		{
			uint8_t* bytes = malloc(1);
			assert_non_null(bytes);
			bytes[0] = (uint8_t)kind;
			assert_true(model_registry_keep(&r, (model_kind)kind, (uint64_t)i * 7919u, bytes, 1, NULL, 0));
		}
	}
	assert_int_equal(r.count, 2 * n);
	// Kept again: replaced, not added.
	uint8_t* again = malloc(1);
	assert_non_null(again);
	again[0] = 9;
	assert_true(model_registry_keep(&r, MODEL_URDF, 7919u, again, 1, NULL, 0));
	assert_int_equal(r.count, 2 * n);
	assert_int_equal(model_registry_find(&r, MODEL_URDF, 7919u)->bytes[0], 9);
	// Every third object's mesh entry forgotten: the rest are still found where they moved.
	for (int i = 0; i < n; i += 3)
	{
		model_registry_forget(&r, MODEL_SHAPE_MESH, (uint64_t)i * 7919u);
	}
	for (int i = 0; i < n; ++i)
	{
		const model_entry* mesh = model_registry_find(&r, MODEL_SHAPE_MESH, (uint64_t)i * 7919u);
		const model_entry* urdf = model_registry_find(&r, MODEL_URDF, (uint64_t)i * 7919u);
		assert_true(i % 3 == 0 ? mesh == NULL : mesh != NULL && mesh->kind == MODEL_SHAPE_MESH);
		assert_true(urdf != NULL && urdf->object == (uint64_t)i * 7919u);
	}
	assert_null(model_registry_find(&r, MODEL_URDF, 1));
	model_registry copy;
	memset(&copy, 0, sizeof(copy));
	assert_true(model_registry_copy(&copy, &r));
	assert_int_equal(copy.count, r.count);
	assert_non_null(model_registry_find(&copy, MODEL_SHAPE_MESH, 7919u));
	model_registry_free(&copy);
	model_registry_clear(&r);
	assert_null(model_registry_find(&r, MODEL_URDF, 0));
	model_registry_free(&r);
}

static void test_errors_and_logs(void** state)
{
	(void)state;
	assert_string_equal(sv_error_name(SN_ERR_NOT_FINITE), "NOT_FINITE");
	assert_string_equal(sv_error_name(SV_ERR_UNKNOWN_WORLD), "UNKNOWN_WORLD");
	assert_string_equal(sv_error_name(12345), "UNKNOWN");
	for (int i = 0; i < sv_error_count(); ++i)
	{
		assert_int_equal(sv_error_index(sv_error_at(i)), i);
		assert_true(strlen(sv_error_message(sv_error_at(i))) > 0);
	}
	char q[64];
	assert_string_equal(log_quote(q, sizeof(q), "plain"), "plain");
	assert_string_equal(log_quote(q, sizeof(q), "two words"), "\"two words\"");
	assert_string_equal(log_quote(q, sizeof(q), "a\"b\n"), "\"a\\\"b\\x0a\"");
	assert_string_equal(log_quote(q, sizeof(q), ""), "\"\"");
	char small[8];
	log_quote(small, sizeof(small), "a very long value that cannot fit");
	assert_true(strlen(small) < sizeof(small));
	assert_int_equal(frame_include_mask(0), sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_JOINT_POSITIONS);
	assert_int_equal(frame_include_mask(2), 2);
	assert_int_equal(frame_include_mask(32 | 4), 32 | 4); // INCLUDE_DRIVE_TARGETS
	assert_int_equal(frame_include_mask(64 | 4), 64 | 4); // INCLUDE_CONTACTS
	assert_int_equal(frame_include_mask(256 | 4), 4);     // unknown bits are dropped
	// Contact events alone: the default frame, with the events.
	assert_int_equal(frame_include_mask(128),
					 128 | sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_JOINT_POSITIONS);
}


// SHA-256 against FIPS 180-2's own examples; the hex form both ways.
static void test_content_addresses(void** state)
{
	(void)state;
	uint8_t h[WIRE_HASH_SIZE];
	char hex[WIRE_HASH_HEX + 1];
	assert_true(wire_sha256("abc", 3, h));
	wire_hash_hex(h, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_true(wire_sha256("", 0, h));
	wire_hash_hex(h, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	uint8_t back[WIRE_HASH_SIZE];
	assert_true(wire_hash_parse(hex, strlen(hex), back));
	assert_memory_equal(back, h, WIRE_HASH_SIZE);
	hex[3] = 'E'; // either case
	assert_true(wire_hash_parse(hex, strlen(hex), back));
	hex[3] = 'g';
	assert_false(wire_hash_parse(hex, strlen(hex), back));
	assert_false(wire_hash_parse(hex, 63, back));
	assert_false(wire_hash_parse("", 0, back));
}

// A mesh written in the format reads back, and every way of breaking one is caught.
static void test_mesh_format(void** state)
{
	(void)state;
	const float positions[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const float normals[9] = { 0, 0, 1, 0, 0, 1, 0, 0, 1 };
	const uint32_t indices[3] = { 0, 1, 2 };
	wire_mesh_part part = { 0, 1, true, { 0.5f, 0.25f, 1.0f, 1.0f } };
	wire_mesh m = { 3, 1, 1, positions, normals, indices, &part };
	size_t size = wire_mesh_size(3, 1, 1);
	assert_int_equal(size, 24 + 24 * 3 + 12 + 28);
	uint8_t* data = malloc(size);
	assert_false(wire_mesh_write(&m, data, size - 1));
	assert_true(wire_mesh_write(&m, data, size));
	assert_memory_equal(data, "SNMS", 4);
	wire_mesh view;
	char why[128];
	assert_true(wire_mesh_check(data, size, &view, why, sizeof(why)));
	assert_int_equal(view.vertex_count, 3);
	assert_int_equal(view.triangle_count, 1);
	assert_int_equal(view.part_count, 1);
	assert_memory_equal(view.positions, positions, sizeof(positions)); // little-endian host
	assert_int_equal(view.indices[2], 2);
	wire_mesh_part back = wire_mesh_part_at(data, &view, 0);
	assert_true(back.has_color && back.rgba[1] == 0.25f && back.triangle_count == 1);
	// Broken: truncated, a wrong magic, a version from the future, an index out of range, a position that is
	// not finite, parts that do not cover the triangles, a reserved word set.
	assert_false(wire_mesh_check(data, size - 1, &view, why, sizeof(why)));
	assert_false(wire_mesh_check(data, 10, &view, why, sizeof(why)));
	uint8_t* bad = malloc(size);
	struct
	{
		size_t offset;
		uint8_t value;
	} flips[] = { { 0, 'X' }, { 4, 2 }, { 20, 1 }, { 24 + 24 * 3 + 8, 3 }, { 27, 0x7f }, { 24 + 24 * 3 + 12 + 4, 2 } };
	for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); ++i)
	{
		memcpy(bad, data, size);
		bad[flips[i].offset] = flips[i].value;
		if (flips[i].offset == 27)
		{
			bad[26] = 0x80; // x of the first position: 0x7f80.... is infinity
			bad[25] = 0;
			bad[24] = 0;
		}
		if (wire_mesh_check(bad, size, &view, why, sizeof(why)))
		{
			fail_msg("flip %zu was not caught", i);
		}
	}
	// Counts that would overflow are refused before any arithmetic on them.
	assert_int_equal(wire_mesh_size(WIRE_MESH_MAX_COUNT + 1, 0, 0), 0);
	free(bad);
	free(data);
}

static asset_blob* blob_of(const char* text, size_t size)
{
	asset_blob* b = asset_blob_new(ASSET_FILE, size);
	memset(b->data, 0, size);
	memcpy(b->data, text, strlen(text) < size ? strlen(text) : size);
	assert_true(asset_blob_hash(b));
	return b;
}

// The store: one copy of each content, least recently used out first, nothing in use ever dropped, and a
// refusal when even so there is no room.
static void test_asset_store(void** state)
{
	(void)state;
	asset_store store;
	assert_true(asset_store_init(&store, 1000));
	char why[200];
	asset_blob* a = blob_of("a", 400);
	asset_blob* b = blob_of("b", 400);
	asset_blob* c = blob_of("c", 400);
	assert_ptr_equal(asset_store_put(&store, a, why, sizeof(why)), a);
	asset_blob* a2 = blob_of("a", 400); // the same content again: the stored one is kept
	assert_ptr_equal(asset_store_put(&store, a2, why, sizeof(why)), a);
	asset_blob_unref(a2);
	assert_ptr_equal(asset_store_put(&store, b, why, sizeof(why)), b);
	assert_int_equal(store.bytes, 800);
	// a is used again: b is now the least recently used, and goes to make room for c.
	assert_ptr_equal(asset_store_find(&store, ASSET_FILE, a->hash), a);
	assert_false(asset_store_has(&store, ASSET_MESH, a->hash)); // kinds apart
	asset_blob_unref(b);                                        // only the store holds b now
	uint8_t b_hash[WIRE_HASH_SIZE];
	memcpy(b_hash, b->hash, WIRE_HASH_SIZE);
	assert_ptr_equal(asset_store_put(&store, c, why, sizeof(why)), c);
	assert_false(asset_store_has(&store, ASSET_FILE, b_hash));
	assert_true(asset_store_has(&store, ASSET_FILE, a->hash));
	assert_int_equal(store.evictions, 1);
	// a and c are held elsewhere (this test's references): d cannot fit, and nothing is dropped.
	asset_blob* d = blob_of("d", 400);
	assert_null(asset_store_put(&store, d, why, sizeof(why)));
	assert_non_null(strstr(why, "max_asset_store_bytes"));
	assert_true(asset_store_has(&store, ASSET_FILE, a->hash) && asset_store_has(&store, ASSET_FILE, c->hash));
	// Once a is let go, it makes room.
	asset_blob_unref(a);
	assert_ptr_equal(asset_store_put(&store, d, why, sizeof(why)), d);
	// Larger than the whole store: refused at once.
	asset_blob* big = blob_of("big", 1001);
	assert_null(asset_store_put(&store, big, why, sizeof(why)));
	asset_blob_unref(big);
	assert_int_equal(store.refusals, 2);
	// Many small ones: the table holds them all, lookups find each.
	asset_store_free(&store);
	assert_true(asset_store_init(&store, 1u << 20));
	asset_blob* first = NULL;
	for (int i = 0; i < 5000; ++i)
	{
		char text[32];
		snprintf(text, sizeof(text), "%d", i);
		asset_blob* x = blob_of(text, 16);
		assert_non_null(asset_store_put(&store, x, why, sizeof(why)));
		if (i == 0)
		{
			first = x;
		}
		else
		{
			asset_blob_unref(x);
		}
	}
	assert_int_equal(store.count, 5000);
	assert_ptr_equal(asset_store_find(&store, ASSET_FILE, first->hash), first);
	asset_blob_unref(first);
	asset_blob_unref(c);
	asset_blob_unref(d);
	asset_store_free(&store);
}

// A full store makes room for the next puts too: finding the least recently used blobs is a pass over the
// table and a sort, and at 65,536 blobs a pass at every put cost milliseconds each on the loop thread (a
// load keeping 256 files: seconds). Each pass now drops down to 7/8 of the bounds, so an eighth of the
// store goes in before the next.
static void test_asset_store_full(void** state)
{
	(void)state;
	asset_store store;
	assert_true(asset_store_init(&store, 1u << 30));
	char why[200];
	uint8_t recent[WIRE_HASH_SIZE];
	const int puts = ASSET_STORE_MAX_ENTRIES + ASSET_STORE_MAX_ENTRIES / 4;
	for (int i = 0; i < puts; ++i)
	{
		char text[32];
		snprintf(text, sizeof(text), "blob %d", i);
		asset_blob* x = blob_of(text, 16);
		assert_non_null(asset_store_put(&store, x, why, sizeof(why)));
		if (i == 10)
		{
			memcpy(recent, x->hash, WIRE_HASH_SIZE); // found again at every put below: it stays
		}
		asset_blob_unref(x);
		if (i >= 10)
		{
			assert_non_null(asset_store_find(&store, ASSET_FILE, recent));
		}
		assert_true(store.count <= ASSET_STORE_MAX_ENTRIES);
	}
	// 16,384 puts past the bound: two passes (each makes room for the next 8,192 puts).
	assert_int_equal(store.eviction_passes, 2);
	assert_int_equal(store.evictions, (uint64_t)puts - (uint64_t)store.count);
	assert_true(store.count >= ASSET_STORE_MAX_ENTRIES / 8 * 7);
	// The oldest went first: blob 0 is gone, and the newest are all there.
	asset_blob* old = blob_of("blob 0", 16);
	assert_false(asset_store_has(&store, ASSET_FILE, old->hash));
	asset_blob_unref(old);
	for (int i = ASSET_STORE_MAX_ENTRIES; i < ASSET_STORE_MAX_ENTRIES + ASSET_STORE_MAX_ENTRIES / 4; i += 97)
	{
		char text[32];
		snprintf(text, sizeof(text), "blob %d", i);
		asset_blob* x = blob_of(text, 16);
		assert_true(asset_store_has(&store, ASSET_FILE, x->hash));
		asset_blob_unref(x);
	}
	asset_store_free(&store);

	// By bytes, with most of the store in use: a pass drops what the put needs and at most an eighth of the
	// budget more, not every blob that is not in use. 8 blobs of 1,000 bytes fill 8,000; 6 are in use.
	assert_true(asset_store_init(&store, 8000));
	asset_blob* held[8];
	for (int i = 0; i < 8; ++i)
	{
		char text[32];
		snprintf(text, sizeof(text), "kilo %d", i);
		held[i] = blob_of(text, 1000);
		assert_non_null(asset_store_put(&store, held[i], why, sizeof(why)));
	}
	uint8_t unused[2][WIRE_HASH_SIZE];
	for (int i = 0; i < 2; ++i)
	{
		memcpy(unused[i], held[i]->hash, WIRE_HASH_SIZE);
		asset_blob_unref(held[i]); // the two oldest: only the store holds them
	}
	asset_blob* more = blob_of("kilo more", 1000);
	assert_non_null(asset_store_put(&store, more, why, sizeof(why)));
	assert_false(asset_store_has(&store, ASSET_FILE, unused[0])); // the least recently used goes
	assert_true(asset_store_has(&store, ASSET_FILE, unused[1]));  // the other stays
	assert_int_equal(store.bytes, 8000);
	asset_blob_unref(more);
	for (int i = 2; i < 8; ++i)
	{
		asset_blob_unref(held[i]);
	}
	asset_store_free(&store);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outbox_newest_frame_wins),
		cmocka_unit_test(test_outbox_reliable_order_and_round_robin),
		cmocka_unit_test(test_idpool_rejects_stale_ids),
		cmocka_unit_test(test_idpool_add_at),
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_client_addresses),
		cmocka_unit_test(test_model_registry_index),
		cmocka_unit_test(test_errors_and_logs),
		cmocka_unit_test(test_content_addresses),
		cmocka_unit_test(test_mesh_format),
		cmocka_unit_test(test_asset_store),
		cmocka_unit_test(test_asset_store_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
