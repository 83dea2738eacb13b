// Snapshot bytes: bounded little-endian writers and readers of the snapshot format's fields
// (snapshot.c has the format; artic/snapshot.c writes its own section with these).
#include "snap_bytes.h"

#include <string.h>

void snap_put_bytes(snap_writer* w, const void* p, size_t n)
{
	if (w->data != NULL)
	{
		if (w->size + n > w->capacity)
		{
			w->overflow = true;
		}
		else
		{
			memcpy(w->data + w->size, p, n);
		}
	}
	w->size += n;
}

void snap_put_u8(snap_writer* w, uint8_t v)
{
	snap_put_bytes(w, &v, 1);
}

void snap_put_u32(snap_writer* w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	snap_put_bytes(w, b, 4);
}

void snap_put_u64(snap_writer* w, uint64_t v)
{
	snap_put_u32(w, (uint32_t)v);
	snap_put_u32(w, (uint32_t)(v >> 32));
}

void snap_put_i32(snap_writer* w, int32_t v)
{
	snap_put_u32(w, (uint32_t)v);
}

void snap_put_f64(snap_writer* w, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	snap_put_u64(w, bits);
}

void snap_put_vec3(snap_writer* w, sn_vec3 v)
{
	snap_put_f64(w, v.x);
	snap_put_f64(w, v.y);
	snap_put_f64(w, v.z);
}

void snap_put_quat(snap_writer* w, sn_quat q)
{
	snap_put_f64(w, q.x);
	snap_put_f64(w, q.y);
	snap_put_f64(w, q.z);
	snap_put_f64(w, q.w);
}

void snap_put_mat33(snap_writer* w, sn_mat33 m)
{
	snap_put_vec3(w, m.cx);
	snap_put_vec3(w, m.cy);
	snap_put_vec3(w, m.cz);
}

void snap_put_soft(snap_writer* w, sn_soft s)
{
	snap_put_u32(w, (uint32_t)s.kind);
	snap_put_f64(w, s.stiffness);
	snap_put_f64(w, s.damping);
	snap_put_f64(w, s.frequency);
	snap_put_f64(w, s.damping_ratio);
}

static const uint8_t* get_bytes(snap_reader* r, size_t n)
{
	if (!r->ok || n > r->size - r->at)
	{
		r->ok = false;
		return NULL;
	}
	const uint8_t* p = r->data + r->at;
	r->at += n;
	return p;
}

uint8_t snap_get_u8(snap_reader* r)
{
	const uint8_t* p = get_bytes(r, 1);
	return p != NULL ? p[0] : 0;
}

uint32_t snap_get_u32(snap_reader* r)
{
	const uint8_t* p = get_bytes(r, 4);
	if (p == NULL)
	{
		return 0;
	}
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

uint64_t snap_get_u64(snap_reader* r)
{
	uint64_t lo = snap_get_u32(r);
	uint64_t hi = snap_get_u32(r);
	return lo | (hi << 32);
}

int32_t snap_get_i32(snap_reader* r)
{
	return (int32_t)snap_get_u32(r);
}

double snap_get_f64(snap_reader* r)
{
	uint64_t bits = snap_get_u64(r);
	double v;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

sn_vec3 snap_get_vec3(snap_reader* r)
{
	sn_vec3 v;
	v.x = snap_get_f64(r);
	v.y = snap_get_f64(r);
	v.z = snap_get_f64(r);
	return v;
}

sn_quat snap_get_quat(snap_reader* r)
{
	sn_quat q;
	q.x = snap_get_f64(r);
	q.y = snap_get_f64(r);
	q.z = snap_get_f64(r);
	q.w = snap_get_f64(r);
	return q;
}

sn_mat33 snap_get_mat33(snap_reader* r)
{
	sn_mat33 m;
	m.cx = snap_get_vec3(r);
	m.cy = snap_get_vec3(r);
	m.cz = snap_get_vec3(r);
	return m;
}

sn_soft snap_get_soft(snap_reader* r)
{
	sn_soft s;
	s.kind = (sn_soft_kind)snap_get_u32(r);
	s.stiffness = snap_get_f64(r);
	s.damping = snap_get_f64(r);
	s.frequency = snap_get_f64(r);
	s.damping_ratio = snap_get_f64(r);
	return s;
}

bool snap_free_list_valid(int32_t head, const int32_t* next, const bool* live, int count)
{
	int dead = 0;
	for (int i = 0; i < count; ++i)
	{
		dead += live[i] ? 0 : 1;
	}
	int seen = 0;
	for (int32_t at = head; at != -1; at = next[at])
	{
		if (at < 0 || at >= count || live[at] || seen >= dead)
		{
			return false; // out of range, a live slot, or a cycle
		}
		seen += 1;
	}
	return seen == dead;
}
