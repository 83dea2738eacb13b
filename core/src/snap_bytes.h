// Snapshot bytes: bounded little-endian writers and readers for the fields of the snapshot format
// (snapshot.c describes it), integers little-endian, doubles as their IEEE-754 bit patterns. A writer
// with no buffer only counts; a reader turns `ok` false at the first short read and yields zeros from
// then on.
#ifndef SINEW_SNAP_BYTES_H
#define SINEW_SNAP_BYTES_H

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

// n raw bytes (the header's magic).
void snap_put_bytes(snap_writer* w, const void* p, size_t n);
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
