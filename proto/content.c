// Content addresses and the mesh format (see content.h).
#include "content.h"

#include <openssl/evp.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

bool wire_sha256(const void* data, size_t size, uint8_t out[WIRE_HASH_SIZE])
{
	unsigned int length = 0;
	static const uint8_t empty[1] = { 0 };
	return EVP_Digest(size > 0 ? data : empty, size, out, &length, EVP_sha256(), NULL) == 1 && length == WIRE_HASH_SIZE;
}

void wire_hash_hex(const uint8_t hash[WIRE_HASH_SIZE], char out[WIRE_HASH_HEX + 1])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < WIRE_HASH_SIZE; ++i)
	{
		out[2 * i] = digits[hash[i] >> 4];
		out[2 * i + 1] = digits[hash[i] & 15];
	}
	out[WIRE_HASH_HEX] = '\0';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
	{
		return c - '0';
	}
	if (c >= 'a' && c <= 'f')
	{
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F')
	{
		return c - 'A' + 10;
	}
	return -1;
}

bool wire_hash_parse(const char* text, size_t size, uint8_t out[WIRE_HASH_SIZE])
{
	if (text == NULL || size != WIRE_HASH_HEX)
	{
		return false;
	}
	for (int i = 0; i < WIRE_HASH_SIZE; ++i)
	{
		int hi = hex_value(text[2 * i]);
		int lo = hex_value(text[2 * i + 1]);
		if (hi < 0 || lo < 0)
		{
			return false;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

// ---- the mesh format ----------------------------------------------------------------------------------

static void put_u32(uint8_t* p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t* p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_f32(uint8_t* p, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof(bits));
	put_u32(p, bits);
}

static float get_f32(const uint8_t* p)
{
	uint32_t bits = get_u32(p);
	float v;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

size_t wire_mesh_size(uint32_t vertex_count, uint32_t triangle_count, uint32_t part_count)
{
	if (vertex_count > WIRE_MESH_MAX_COUNT || triangle_count > WIRE_MESH_MAX_COUNT || part_count > WIRE_MESH_MAX_COUNT)
	{
		return 0;
	}
	return (size_t)WIRE_MESH_HEADER_BYTES + 24u * (size_t)vertex_count + 12u * (size_t)triangle_count +
		(size_t)WIRE_MESH_PART_BYTES * part_count;
}

bool wire_mesh_write(const wire_mesh* m, uint8_t* out, size_t size)
{
	size_t need = wire_mesh_size(m->vertex_count, m->triangle_count, m->part_count);
	if (need == 0 || need != size)
	{
		return false;
	}
	memcpy(out, WIRE_MESH_MAGIC, 4);
	put_u32(out + 4, WIRE_MESH_VERSION);
	put_u32(out + 8, m->vertex_count);
	put_u32(out + 12, m->triangle_count);
	put_u32(out + 16, m->part_count);
	put_u32(out + 20, 0);
	uint8_t* p = out + WIRE_MESH_HEADER_BYTES;
	for (size_t i = 0; i < 3u * (size_t)m->vertex_count; ++i, p += 4)
	{
		put_f32(p, m->positions[i]);
	}
	for (size_t i = 0; i < 3u * (size_t)m->vertex_count; ++i, p += 4)
	{
		put_f32(p, m->normals != NULL ? m->normals[i] : 0.0f);
	}
	for (size_t i = 0; i < 3u * (size_t)m->triangle_count; ++i, p += 4)
	{
		put_u32(p, m->indices[i]);
	}
	for (uint32_t i = 0; i < m->part_count; ++i, p += WIRE_MESH_PART_BYTES)
	{
		const wire_mesh_part* part = m->parts + i;
		put_u32(p, part->first_triangle);
		put_u32(p + 4, part->triangle_count);
		put_u32(p + 8, part->has_color ? 1u : 0u);
		for (int k = 0; k < 4; ++k)
		{
			put_f32(p + 12 + 4 * k, part->rgba[k]);
		}
	}
	return true;
}

static bool refuse(char* why, size_t cap, const char* text)
{
	if (why != NULL && cap > 0)
	{
		snprintf(why, cap, "%s", text);
	}
	return false;
}

bool wire_mesh_check(const uint8_t* data, size_t size, wire_mesh* out, char* why, size_t cap)
{
	if (size < WIRE_MESH_HEADER_BYTES || memcmp(data, WIRE_MESH_MAGIC, 4) != 0)
	{
		return refuse(why, cap, "not a mesh: no SNMS header");
	}
	if (get_u32(data + 4) != WIRE_MESH_VERSION)
	{
		return refuse(why, cap, "a mesh format version this reader does not know");
	}
	uint32_t v = get_u32(data + 8), t = get_u32(data + 12), parts = get_u32(data + 16);
	size_t need = wire_mesh_size(v, t, parts);
	if (need == 0 || need != size)
	{
		return refuse(why, cap, "the mesh's size does not match its counts");
	}
	if (get_u32(data + 20) != 0)
	{
		return refuse(why, cap, "the mesh's reserved word is not zero");
	}
	const uint8_t* positions = data + WIRE_MESH_HEADER_BYTES;
	const uint8_t* normals = positions + 12u * (size_t)v;
	const uint8_t* indices = normals + 12u * (size_t)v;
	const uint8_t* part_bytes = indices + 12u * (size_t)t;
	for (size_t i = 0; i < 6u * (size_t)v; ++i)
	{
		if (!isfinite(get_f32(positions + 4 * i)))
		{
			return refuse(why, cap, "a position or normal is not finite");
		}
	}
	for (size_t i = 0; i < 3u * (size_t)t; ++i)
	{
		if (get_u32(indices + 4 * i) >= v)
		{
			return refuse(why, cap, "a triangle index is out of range");
		}
	}
	uint64_t covered = 0;
	for (uint32_t i = 0; i < parts; ++i)
	{
		const uint8_t* p = part_bytes + (size_t)WIRE_MESH_PART_BYTES * i;
		uint64_t first = get_u32(p), count = get_u32(p + 4);
		if (first != covered || first + count > t || get_u32(p + 8) > 1u)
		{
			return refuse(why, cap, "the mesh's parts do not cover its triangles in order");
		}
		covered = first + count;
	}
	if (parts > 0 && covered != t)
	{
		return refuse(why, cap, "the mesh's parts do not cover its triangles in order");
	}
	if (out != NULL)
	{
		out->vertex_count = v;
		out->triangle_count = t;
		out->part_count = parts;
		out->positions = (const float*)(const void*)positions;
		out->normals = (const float*)(const void*)normals;
		out->indices = (const uint32_t*)(const void*)indices;
		out->parts = NULL;
	}
	return true;
}

wire_mesh_part wire_mesh_part_at(const uint8_t* data, const wire_mesh* mesh, uint32_t index)
{
	wire_mesh_part part;
	memset(&part, 0, sizeof(part));
	if (index >= mesh->part_count)
	{
		return part;
	}
	const uint8_t* p = data + WIRE_MESH_HEADER_BYTES + 24u * (size_t)mesh->vertex_count +
		12u * (size_t)mesh->triangle_count + (size_t)WIRE_MESH_PART_BYTES * index;
	part.first_triangle = get_u32(p);
	part.triangle_count = get_u32(p + 4);
	part.has_color = get_u32(p + 8) != 0;
	for (int k = 0; k < 4; ++k)
	{
		part.rgba[k] = get_f32(p + 12 + 4 * k);
	}
	return part;
}
