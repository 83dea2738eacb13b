// Snapshot byte format: bounded little-endian writers and readers, and the section layout.
//
// Layout (all integers little-endian, doubles as their IEEE-754 bit patterns):
//   header   "SNWSNAP1" (8 bytes), u32 version (SN_SNAPSHOT_VERSION), u32 section count,
//            u64 payload size, u64 FNV-1a hash of the payload
//   payload  sections, each: u32 tag, u64 length, then `length` bytes
// Sections, in order: WRLD (settings and clock), BODY (the body pool, dead slots included so ids and
// free lists survive), JONT (the joint pool with warm starts), ARTC (articulations and mimic joints,
// artic/snapshot.c). Modules with state of their own add a section after these (see snapshot.c). A reader rejects unknown tags, short or long sections, and any
// field that a def or setter would reject.
#ifndef SINEW_SNAPSHOT_H
#define SINEW_SNAPSHOT_H

#include "sinew/types.h"

typedef struct snap_writer
{
	uint8_t* data; // NULL: only count bytes
	size_t capacity;
	size_t size; // bytes written (or that would have been)
	bool overflow;
} snap_writer;

typedef struct snap_reader
{
	const uint8_t* data;
	size_t size;
	size_t at;
	bool ok; // false after any short read
} snap_reader;

void snap_put_u8(snap_writer* w, uint8_t v);
void snap_put_u32(snap_writer* w, uint32_t v);
void snap_put_u64(snap_writer* w, uint64_t v);
void snap_put_i32(snap_writer* w, int32_t v);
void snap_put_f64(snap_writer* w, double v);
void snap_put_vec3(snap_writer* w, sn_vec3 v);
void snap_put_quat(snap_writer* w, sn_quat q);
void snap_put_mat33(snap_writer* w, sn_mat33 m);
void snap_put_soft(snap_writer* w, sn_soft s);

uint8_t snap_get_u8(snap_reader* r);
uint32_t snap_get_u32(snap_reader* r);
uint64_t snap_get_u64(snap_reader* r);
int32_t snap_get_i32(snap_reader* r);
double snap_get_f64(snap_reader* r);
sn_vec3 snap_get_vec3(snap_reader* r);
sn_quat snap_get_quat(snap_reader* r);
sn_mat33 snap_get_mat33(snap_reader* r);
sn_soft snap_get_soft(snap_reader* r);

// Walk a free list from head through next[] over `count` slots:
// every dead slot must appear exactly once and no live one. live[i] says which slots are live.
bool snap_free_list_valid(int32_t head, const int32_t* next, const bool* live, int count);

#endif
