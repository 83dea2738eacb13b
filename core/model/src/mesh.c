// Mesh files into triangles: the resolvers that find a file's bytes, the reader (Debian's assimp, from
// memory) and the model-level step that reads every mesh a model names.
//
// Bounds, in the order they act:
//   - a resolver never hands over more than max_file_bytes (the filesystem resolver reads at most one byte
//     more than that and stops), and a model never more than max_model_bytes in all;
//   - a DAE is scanned by expat before assimp sees it (dae_scan.c: nesting, instances expanded on paper,
//     every count checked against the values the file holds);
//   - a binary STL's header triangle count is checked against the file's size (assimp checks it too); an
//     ASCII STL's grammar and an OBJ's vertex lines and element indices are checked before assimp reads
//     them, because assimp 5.2 leaks what it has built when such a file fails half way (found with
//     LeakSanitizer and fuzz_mesh);
//   - after reading, the triangle count against max_triangles and every coordinate for finiteness.
// assimp is told the format by the extension and reads through a file system of ours that holds the one
// file and nothing else (aiImportFileExWithProperties with an aiFileIO): its readers open other files by
// name (an OBJ's mtllib, for one), and with assimp's own file system, which aiImportFileFromMemory falls
// back to for every name but the buffer's, a file could make the server read /etc/passwd or block on
// a FIFO. Any other name fails to open, and at most MEMORY_FS_MAX_OPENS opens are served per read.
//
// The Collada up axis: assimp turns a Collada scene to its own Y-up convention (a Z_UP file is turned by
// -90 degrees about x); URDF frames are Z up, so every DAE's vertices and normals are turned back by +90
// degrees about x, (x, y, z) -> (x, -z, y). A Z_UP file keeps the coordinates it was written in (what RViz
// and Gazebo show), a Y_UP file stands up.
#include "model_internal.h"

#include "sinew/shape.h"

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

uint64_t snm_fnv1a64(const void* data, size_t size)
{
	const unsigned char* p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < size; ++i)
	{
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

const char* snm_asset_error_name(snm_asset_error error)
{
	switch (error)
	{
		case SNM_ASSET_NONE:
			return "none";
		case SNM_ASSET_NOT_FOUND:
			return "not_found";
		case SNM_ASSET_REFUSED:
			return "refused";
		case SNM_ASSET_TOO_LARGE:
			return "too_large";
		case SNM_ASSET_TOO_MANY_TRIANGLES:
			return "too_many_triangles";
		case SNM_ASSET_TOO_MANY_MESHES:
			return "too_many_meshes";
		case SNM_ASSET_MODEL_TOO_LARGE:
			return "model_too_large";
		case SNM_ASSET_TOO_DEEP:
			return "too_deep";
		case SNM_ASSET_UNREADABLE:
			return "unreadable";
		case SNM_ASSET_EMPTY:
			return "empty";
		case SNM_ASSET_UNSUPPORTED:
			return "unsupported";
	}
	return "unknown";
}

snm_mesh_limits snm_default_mesh_limits(void)
{
	snm_mesh_limits l;
	l.max_file_bytes = SNM_MESH_MAX_FILE_BYTES;
	l.max_triangles = SNM_MESH_MAX_TRIANGLES;
	l.max_meshes = SNM_MESH_MAX_MESHES;
	l.max_model_bytes = SNM_MESH_MAX_MODEL_BYTES;
	l.max_xml_depth = SNM_MESH_MAX_XML_DEPTH;
	return l;
}

snm_mesh_options snm_default_mesh_options(void)
{
	snm_mesh_options o;
	memset(&o, 0, sizeof(o));
	o.use_env_path = true;
	o.read_files = true;
	o.load_visuals = true;
	o.load_collisions = true;
	o.limits = snm_default_mesh_limits();
	return o;
}

static sn_error asset_fail(snm_error* error, sn_error code, snm_asset_error asset, const char* file, int line,
						   const char* element, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;

static sn_error asset_fail(snm_error* error, sn_error code, snm_asset_error asset, const char* file, int line,
						   const char* element, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	model_vfail(error, code, file, line, 0, element, format, args);
	va_end(args);
	if (error != NULL)
	{
		error->asset = asset;
	}
	return code;
}

// ---- The reader ----

typedef enum mesh_format
{
	FORMAT_NONE = 0,
	FORMAT_STL,
	FORMAT_OBJ,
	FORMAT_DAE,
} mesh_format;

static mesh_format format_of(const char* name)
{
	const char* dot = strrchr(name, '.');
	if (dot == NULL || strchr(dot, '/') != NULL)
	{
		return FORMAT_NONE;
	}
	char ext[8];
	size_t n = strlen(dot + 1);
	if (n == 0 || n >= sizeof(ext))
	{
		return FORMAT_NONE;
	}
	for (size_t i = 0; i <= n; ++i)
	{
		char c = dot[1 + i];
		ext[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	if (strcmp(ext, "stl") == 0)
	{
		return FORMAT_STL;
	}
	if (strcmp(ext, "obj") == 0)
	{
		return FORMAT_OBJ;
	}
	if (strcmp(ext, "dae") == 0)
	{
		return FORMAT_DAE;
	}
	return FORMAT_NONE;
}

// ---- assimp's file system: one file in memory ----

// Opens served per read: assimp opens the file to detect its format and again to read it.
#define MEMORY_FS_MAX_OPENS 16

typedef struct memory_fs
{
	const unsigned char* data;
	size_t size;
	const char* name; // the one name that opens
	int opens;
} memory_fs;

typedef struct memory_file
{
	struct aiFile file; // first: assimp hands back the aiFile pointer
	const unsigned char* data;
	size_t size;
	size_t position;
} memory_file;

static size_t memory_read(struct aiFile* file, char* buffer, size_t size, size_t count)
{
	memory_file* f = (memory_file*)(void*)file;
	if (size == 0 || count == 0)
	{
		return 0;
	}
	size_t left = f->size - f->position;
	size_t n = count < left / size ? count : left / size;
	memcpy(buffer, f->data + f->position, n * size);
	f->position += n * size;
	return n;
}

static size_t memory_write(struct aiFile* file, const char* buffer, size_t size, size_t count)
{
	(void)file;
	(void)buffer;
	(void)size;
	(void)count;
	return 0;
}

static size_t memory_tell(struct aiFile* file)
{
	return ((memory_file*)(void*)file)->position;
}

static size_t memory_size(struct aiFile* file)
{
	return ((memory_file*)(void*)file)->size;
}

static enum aiReturn memory_seek(struct aiFile* file, size_t offset, enum aiOrigin origin)
{
	memory_file* f = (memory_file*)(void*)file;
	size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? f->position : f->size;
	if (origin != aiOrigin_SET && origin != aiOrigin_CUR && origin != aiOrigin_END)
	{
		return aiReturn_FAILURE;
	}
	// assimp passes a negative offset from the end or from here as a wrapped size_t: the sum wraps back.
	size_t target = base + offset;
	if (target > f->size)
	{
		return aiReturn_FAILURE;
	}
	f->position = target;
	return aiReturn_SUCCESS;
}

static void memory_flush(struct aiFile* file)
{
	(void)file;
}

static struct aiFile* memory_open(struct aiFileIO* io, const char* name, const char* mode)
{
	memory_fs* fs = (memory_fs*)(void*)io->UserData;
	if (name == NULL || mode == NULL || strcmp(name, fs->name) != 0 || strchr(mode, 'w') != NULL ||
		strchr(mode, 'a') != NULL || fs->opens >= MEMORY_FS_MAX_OPENS)
	{
		return NULL;
	}
	memory_file* f = calloc(1, sizeof(*f));
	if (f == NULL)
	{
		return NULL;
	}
	fs->opens++;
	f->file.ReadProc = memory_read;
	f->file.WriteProc = memory_write;
	f->file.TellProc = memory_tell;
	f->file.FileSizeProc = memory_size;
	f->file.SeekProc = memory_seek;
	f->file.FlushProc = memory_flush;
	f->file.UserData = NULL;
	f->data = fs->data;
	f->size = fs->size;
	return &f->file;
}

static void memory_close(struct aiFileIO* io, struct aiFile* file)
{
	(void)io;
	free(file);
}

// The grammar of an ASCII STL, checked before assimp reads it (assimp 5.2 leaks the mesh and node of a
// solid when it throws in the middle of one: a file that stops inside a facet, a number it cannot read, a
// name too long):
//   solid [name]  { facet normal n n n  outer loop  vertex x y z (three times)  endloop  endfacet }
//   endsolid [name]   (repeated; names run to the end of their line, and are shorter than 1,024 bytes)
// The numbers are read as assimp reads them (fast_atoreal_move): after "normal" or "vertex" one white-space
// character, then three decimal numbers ([+-] digits [. [digits]] or [+-] . digits, then [eE] [+-] digits)
// separated by spaces or tabs only, the last followed by white space; assimp does not look past the end
// of a line for them. Each must also be finite.
typedef struct stl_cursor
{
	const unsigned char* p;
	const unsigned char* end;
} stl_cursor;

// White space as assimp's STL reader sees it (IsSpaceOrNewLine, without the NUL a file may not hold).
static bool stl_line_end(unsigned char c)
{
	return c == '\r' || c == '\n' || c == '\f';
}

static bool stl_space(unsigned char c)
{
	return c == ' ' || c == '\t' || stl_line_end(c);
}

// The next white-space separated token: [*start, *start + *length). False at the end.
static bool stl_token(stl_cursor* c, const unsigned char** start, size_t* length)
{
	while (c->p < c->end && stl_space(*c->p))
	{
		++c->p;
	}
	if (c->p == c->end)
	{
		return false;
	}
	*start = c->p;
	while (c->p < c->end && !stl_space(*c->p))
	{
		++c->p;
	}
	*length = (size_t)(c->p - *start);
	return true;
}

static bool stl_expect(stl_cursor* c, const char* word)
{
	const unsigned char* t;
	size_t n;
	return stl_token(c, &t, &n) && n == strlen(word) && memcmp(t, word, n) == 0;
}

static bool stl_digit(const stl_cursor* c, const unsigned char* p)
{
	return p < c->end && *p >= '0' && *p <= '9';
}

static const unsigned char* stl_digits(const stl_cursor* c, const unsigned char* p)
{
	while (stl_digit(c, p))
	{
		++p;
	}
	return p;
}

// One decimal number at the cursor (the grammar above), advanced past; false if there is none or it is not
// finite.
static bool stl_decimal(stl_cursor* c)
{
	const unsigned char* start = c->p;
	const unsigned char* p = start;
	if (p < c->end && (*p == '+' || *p == '-'))
	{
		++p;
	}
	const bool whole = stl_digit(c, p);
	p = stl_digits(c, p);
	if (p < c->end && *p == '.')
	{
		const bool fraction = stl_digit(c, p + 1);
		if (!whole && !fraction)
		{
			return false;
		}
		p = stl_digits(c, p + 1);
	}
	else if (!whole)
	{
		return false;
	}
	if (p < c->end && (*p == 'e' || *p == 'E'))
	{
		++p;
		if (p < c->end && (*p == '+' || *p == '-'))
		{
			++p;
		}
		if (!stl_digit(c, p))
		{
			return false;
		}
		p = stl_digits(c, p);
	}
	const size_t n = (size_t)(p - start);
	if (n >= 64)
	{
		return false;
	}
	char text[64];
	memcpy(text, start, n);
	text[n] = '\0';
	c->p = p;
	return isfinite(strtod(text, NULL));
}

// Spaces and tabs (not line ends).
static void stl_blanks(stl_cursor* c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
	{
		++c->p;
	}
}

// After a keyword: one white-space character, blanks, then `word` followed by white space.
static bool stl_word_on_line(stl_cursor* c, const char* word)
{
	const size_t n = strlen(word);
	if (!(c->p < c->end && stl_space(*c->p)))
	{
		return false;
	}
	++c->p;
	stl_blanks(c);
	if (!((size_t)(c->end - c->p) > n && memcmp(c->p, word, n) == 0 && stl_space(c->p[n])))
	{
		return false;
	}
	c->p += n;
	return true;
}

// The three numbers after "normal" or "vertex" (the cursor just past the keyword).
static bool stl_three_numbers(stl_cursor* c)
{
	if (!(c->p < c->end && stl_space(*c->p)))
	{
		return false;
	}
	++c->p;
	for (int k = 0; k < 3; ++k)
	{
		stl_blanks(c);
		if (!stl_decimal(c))
		{
			return false;
		}
		const bool blank = c->p < c->end && (*c->p == ' ' || *c->p == '\t');
		if (k < 2 ? !blank : (c->p < c->end && !stl_space(*c->p)))
		{
			return false;
		}
	}
	return true;
}

static void stl_skip_line(stl_cursor* c)
{
	while (c->p < c->end && !stl_line_end(*c->p))
	{
		++c->p;
	}
}

static bool check_ascii_stl(const unsigned char* text, size_t size, char* why, size_t capacity)
{
	// assimp reads the text as a C string: a NUL ends it wherever it stands, a facet's middle included.
	const unsigned char* nul = memchr(text, '\0', size);
	if (nul != NULL)
	{
		snprintf(why, capacity, "a NUL byte at offset %zu", (size_t)(nul - text));
		return false;
	}
	stl_cursor c = { text, text + size };
	const unsigned char* t;
	size_t n;
	bool solid = false;
	while (stl_token(&c, &t, &n))
	{
		if (!solid)
		{
			if (!(n == 5 && memcmp(t, "solid", 5) == 0))
			{
				snprintf(why, capacity, "expected \"solid\"");
				return false;
			}
			stl_blanks(&c);
			const unsigned char* name = c.p;
			while (c.p < c.end && !stl_space(*c.p))
			{
				++c.p;
			}
			if (c.p - name >= 1024)
			{
				snprintf(why, capacity, "a solid's name of 1,024 bytes or more");
				return false;
			}
			// The rest of the line is the name's to this grammar (names may have spaces), but assimp reads its
			// words as the solid's body: a "vertex" there it ignores (no facet is open), a "facet" opens one
			// that this check would not see.
			stl_cursor line = { c.p, c.end };
			stl_skip_line(&line);
			line.end = line.p;
			line.p = c.p;
			while (stl_token(&line, &t, &n))
			{
				if (n == 5 && memcmp(t, "facet", 5) == 0)
				{
					snprintf(why, capacity, "\"facet\" on the line of \"solid\"");
					return false;
				}
			}
			stl_skip_line(&c);
			solid = true;
			continue;
		}
		if (n == 8 && memcmp(t, "endsolid", 8) == 0)
		{
			stl_skip_line(&c);
			solid = false;
			continue;
		}
		if (!(n == 5 && memcmp(t, "facet", 5) == 0) || !stl_word_on_line(&c, "normal") || !stl_three_numbers(&c) ||
			!stl_expect(&c, "outer") || !stl_expect(&c, "loop"))
		{
			snprintf(why, capacity,
					 "a malformed facet (expected \"facet normal n n n outer loop\", the numbers on one line)");
			return false;
		}
		for (int k = 0; k < 3; ++k)
		{
			if (!stl_expect(&c, "vertex") || !stl_three_numbers(&c))
			{
				snprintf(why, capacity, "a facet without three \"vertex x y z\" (each on one line)");
				return false;
			}
		}
		if (!stl_expect(&c, "endloop") || !stl_expect(&c, "endfacet"))
		{
			snprintf(why, capacity, "a facet not closed by \"endloop endfacet\"");
			return false;
		}
	}
	if (solid)
	{
		snprintf(why, capacity, "the file ends inside a solid (no \"endsolid\")");
		return false;
	}
	return true;
}

// An OBJ's element indices (f, l, p: v, v/vt, v//vn, v/vt/vn), checked before assimp reads it: assimp
// 5.2 leaks the meshes it has made when an index out of range turns up in a later group (about 1.4 kB a
// read). Each index must be an integer, not 0, at most the file's count of its kind (positions, texture
// coordinates, normals) when positive and at most the count so far when negative (relative).
// The numbers on the rest of a line (white-space separated, each wholly a finite number), or -1 when a
// token is not one.
static int count_obj_numbers(const unsigned char* text, size_t size)
{
	int count = 0;
	size_t i = 0;
	while (i < size)
	{
		while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
		{
			++i;
		}
		if (i >= size || text[i] == '#')
		{
			break;
		}
		size_t start = i;
		while (i < size && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
		{
			++i;
		}
		char token[64];
		size_t n = i - start;
		if (n >= sizeof(token))
		{
			return -1;
		}
		memcpy(token, text + start, n);
		token[n] = '\0';
		char* end = NULL;
		double v = strtod(token, &end);
		if (end != token + n || !isfinite(v))
		{
			return -1;
		}
		++count;
	}
	return count;
}

static bool check_obj_indices(const unsigned char* text, size_t size, char* why, size_t capacity)
{
	long total[3] = { 0, 0, 0 }; // v, vt, vn in the whole file
	for (int pass = 0; pass < 2; ++pass)
	{
		long seen[3] = { 0, 0, 0 };
		size_t i = 0;
		long line = 1;
		while (i < size)
		{
			size_t end = i;
			while (end < size && text[end] != '\n')
			{
				++end;
			}
			size_t k = i;
			while (k < end && (text[k] == ' ' || text[k] == '\t'))
			{
				++k;
			}
			bool space_after = k + 1 < end && (text[k + 1] == ' ' || text[k + 1] == '\t');
			bool space_after2 = k + 2 < end && (text[k + 2] == ' ' || text[k + 2] == '\t');
			int kind = -1;
			if (k < end && text[k] == 'v' && space_after)
			{
				kind = 0;
			}
			else if (k + 1 < end && text[k] == 'v' && text[k + 1] == 't' && space_after2)
			{
				kind = 1;
			}
			else if (k + 1 < end && text[k] == 'v' && text[k + 1] == 'n' && space_after2)
			{
				kind = 2;
			}
			if (kind >= 0)
			{
				// Counted as assimp counts them only if the line is what it expects: numbers only (v: 3 to
				// 7, position, w or a colour; vt: 1 to 3; vn: 3).
				static const int least[3] = { 3, 1, 3 }, most[3] = { 7, 3, 3 };
				int numbers = count_obj_numbers(text + k + (kind == 0 ? 1 : 2), end - k - (kind == 0 ? 1 : 2));
				if (pass == 0 && (numbers < least[kind] || numbers > most[kind]))
				{
					snprintf(why, capacity, "line %ld: a malformed %s line", line,
							 kind == 0       ? "v"
								 : kind == 1 ? "vt"
											 : "vn");
					return false;
				}
				seen[kind]++;
			}
			else if (pass == 1 && k < end && (text[k] == 'f' || text[k] == 'l' || text[k] == 'p') && space_after)
			{
				size_t j = k + 1;
				while (j < end)
				{
					while (j < end && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r'))
					{
						++j;
					}
					if (j >= end || text[j] == '#')
					{
						break;
					}
					// One corner: up to three indices separated by '/', each possibly empty (not the first).
					for (int slot = 0; slot < 3 && j < end && text[j] != ' ' && text[j] != '\t' && text[j] != '\r';
						 ++slot)
					{
						bool negative = j < end && text[j] == '-';
						j += negative ? 1 : 0;
						long value = 0;
						int digits = 0;
						while (j < end && text[j] >= '0' && text[j] <= '9')
						{
							value = value < 100000000L ? value * 10 + (text[j] - '0') : 1000000000L;
							++j;
							++digits;
						}
						bool empty = digits == 0 && !negative;
						if ((empty && slot == 0) || (!empty && (digits == 0 || value == 0)) ||
							(!empty && !negative && value > total[slot]) || (!empty && negative && value > seen[slot]))
						{
							snprintf(why, capacity, "line %ld: an index out of range or not a number", line);
							return false;
						}
						if (j < end && text[j] == '/')
						{
							++j;
							if (slot == 2)
							{
								snprintf(why, capacity, "line %ld: more than three indices in a corner", line);
								return false;
							}
						}
						else if (j < end && text[j] != ' ' && text[j] != '\t' && text[j] != '\r')
						{
							snprintf(why, capacity, "line %ld: an index out of range or not a number", line);
							return false;
						}
					}
				}
			}
			i = end + 1;
			++line;
		}
		if (pass == 0)
		{
			memcpy(total, seen, sizeof(total));
		}
	}
	return true;
}

// Turn every "mtllib" statement of an OBJ into a comment, in place.
static void neutralise_mtllib(unsigned char* text, size_t size)
{
	bool line_start = true;
	for (size_t i = 0; i < size; ++i)
	{
		unsigned char c = text[i];
		if (c == '\n' || c == '\r')
		{
			line_start = true;
			continue;
		}
		if (line_start && (c == ' ' || c == '\t'))
		{
			continue;
		}
		if (line_start && size - i >= 6 && memcmp(text + i, "mtllib", 6) == 0)
		{
			text[i] = '#';
		}
		line_start = false;
	}
}

void snm_mesh_destroy(snm_mesh* mesh)
{
	if (mesh != NULL)
	{
		free(mesh->positions);
		free(mesh->normals);
		free(mesh->indices);
		free(mesh->parts);
		free(mesh);
	}
}

// Vertices with the same position and normal (bit for bit) become one, by a hash table of twice the
// vertex count: what aiProcess_JoinIdenticalVertices does, in linear time. Out of memory: left as is.
static void weld_vertices(snm_mesh* mesh)
{
	size_t n = (size_t)mesh->vertex_count;
	size_t slots = 16;
	while (slots < 2 * n)
	{
		slots *= 2;
	}
	int32_t* table = malloc(slots * sizeof(int32_t));
	uint32_t* remap = malloc(n * sizeof(uint32_t));
	if (table == NULL || remap == NULL)
	{
		free(table);
		free(remap);
		return;
	}
	memset(table, 0xff, slots * sizeof(int32_t));
	uint32_t kept = 0;
	for (size_t i = 0; i < n; ++i)
	{
		float key[6];
		memcpy(key, &mesh->positions[3 * i], 3 * sizeof(float));
		memcpy(key + 3, &mesh->normals[3 * i], 3 * sizeof(float));
		uint64_t h = snm_fnv1a64(key, sizeof(key));
		size_t slot = (size_t)h & (slots - 1);
		while (table[slot] >= 0)
		{
			size_t k = (size_t)table[slot];
			if (memcmp(&mesh->positions[3 * k], key, 3 * sizeof(float)) == 0 &&
				memcmp(&mesh->normals[3 * k], key + 3, 3 * sizeof(float)) == 0)
			{
				break;
			}
			slot = (slot + 1) & (slots - 1);
		}
		if (table[slot] < 0)
		{
			// A new vertex: moved down to its kept index (kept <= i, so nothing unread is overwritten).
			table[slot] = (int32_t)kept;
			memmove(&mesh->positions[3 * (size_t)kept], key, 3 * sizeof(float));
			memmove(&mesh->normals[3 * (size_t)kept], key + 3, 3 * sizeof(float));
			remap[i] = kept++;
		}
		else
		{
			remap[i] = (uint32_t)table[slot];
		}
	}
	for (size_t t = 0; t < 3 * (size_t)mesh->triangle_count; ++t)
	{
		mesh->indices[t] = remap[mesh->indices[t]];
	}
	mesh->vertex_count = (int)kept;
	free(table);
	free(remap);
}

// Normals of zero length (a file's own, or assimp's for a vertex of degenerate triangles only) become the
// area-weighted normal of the triangles around the vertex, or (0, 0, 1) when those have no area either:
// every normal is unit length for the renderer.
static void repair_normals(snm_mesh* mesh)
{
	bool any = false;
	for (int i = 0; i < mesh->vertex_count; ++i)
	{
		float* n = &mesh->normals[3 * (size_t)i];
		double length = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
		if (length > 1e-6)
		{
			n[0] = (float)(n[0] / length), n[1] = (float)(n[1] / length), n[2] = (float)(n[2] / length);
		}
		else
		{
			n[0] = n[1] = n[2] = 0.0f;
			any = true;
		}
	}
	if (!any)
	{
		return;
	}
	double* sum = calloc((size_t)mesh->vertex_count * 3, sizeof(double));
	for (int t = 0; sum != NULL && t < mesh->triangle_count; ++t)
	{
		const uint32_t* tri = &mesh->indices[3 * (size_t)t];
		const float* a = &mesh->positions[3 * (size_t)tri[0]];
		const float* b = &mesh->positions[3 * (size_t)tri[1]];
		const float* c = &mesh->positions[3 * (size_t)tri[2]];
		double e1[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, e2[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
		double cross[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
							e1[0] * e2[1] - e1[1] * e2[0] };
		for (int k = 0; k < 3; ++k)
		{
			for (int d = 0; d < 3; ++d)
			{
				sum[3 * (size_t)tri[k] + d] += cross[d];
			}
		}
	}
	for (int i = 0; i < mesh->vertex_count; ++i)
	{
		float* n = &mesh->normals[3 * (size_t)i];
		if (n[0] != 0.0f || n[1] != 0.0f || n[2] != 0.0f)
		{
			continue;
		}
		const double* s = sum != NULL ? &sum[3 * (size_t)i] : NULL;
		double length = s != NULL ? sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) : 0.0;
		if (length > 0.0 && isfinite(length))
		{
			n[0] = (float)(s[0] / length), n[1] = (float)(s[1] / length), n[2] = (float)(s[2] / length);
		}
		else
		{
			n[2] = 1.0f;
		}
	}
	free(sum);
}

static bool check_mesh_limits(const snm_mesh_limits* l)
{
	return l->max_file_bytes > 0 && l->max_file_bytes <= (size_t)INT_MAX && l->max_triangles > 0 &&
		l->max_triangles <= SN_SHAPE_MAX_MESH_TRIANGLES && l->max_meshes > 0 && l->max_meshes <= 65536 &&
		l->max_model_bytes > 0 && l->max_xml_depth >= 2 && l->max_xml_depth <= SNM_MESH_MAX_XML_DEPTH;
}

sn_error snm_read_mesh(const void* data, size_t size, const char* name, const snm_mesh_limits* limits,
					   snm_mesh** out_mesh, snm_error* error)
{
	model_error_clear(error);
	const char* file = name != NULL ? name : "<mesh>";
	if (out_mesh == NULL || (data == NULL && size > 0))
	{
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_NONE, file, 0, "", "out_mesh or data is NULL");
	}
	*out_mesh = NULL;
	snm_mesh_limits lim = limits != NULL ? *limits : snm_default_mesh_limits();
	if (!check_mesh_limits(&lim))
	{
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_NONE, file, 0, "",
						  "mesh limits out of range (max_file_bytes 1..%d, max_triangles 1..%d, max_xml_depth 2..%d)",
						  INT_MAX, SN_SHAPE_MAX_MESH_TRIANGLES, SNM_MESH_MAX_XML_DEPTH);
	}
	mesh_format format = format_of(file);
	if (format == FORMAT_NONE)
	{
		return asset_fail(error, SN_ERR_UNSUPPORTED, SNM_ASSET_UNSUPPORTED, file, 0, "",
						  "not a mesh format the importer reads (STL, OBJ or DAE, by the file name's extension)");
	}
	if (size > lim.max_file_bytes)
	{
		return asset_fail(error, SN_ERR_CAPACITY, SNM_ASSET_TOO_LARGE, file, 0, "",
						  "%zu bytes, more than max_file_bytes (%zu)", size, lim.max_file_bytes);
	}
	if (size == 0)
	{
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_EMPTY, file, 0, "", "the file is empty");
	}
	const unsigned char* bytes = data;
	if (format == FORMAT_STL)
	{
		// assimp's rule: binary when the size is exactly 84 + 50 * the header's count (an 80-byte header, a
		// 32-bit little-endian count, 50 bytes per triangle; many binary files start with "solid" too),
		// else ASCII when it starts with "solid".
		uint32_t count = size >= 84
			? (uint32_t)bytes[80] | (uint32_t)bytes[81] << 8 | (uint32_t)bytes[82] << 16 | (uint32_t)bytes[83] << 24
			: 0;
		bool binary = size >= 84 && 84 + 50 * (uint64_t)count == size;
		size_t lead = 0;
		while (lead < size && (bytes[lead] == ' ' || bytes[lead] == '\t' || bytes[lead] == '\r' || bytes[lead] == '\n'))
		{
			++lead;
		}
		bool ascii = !binary && size - lead >= 5 && memcmp(bytes + lead, "solid", 5) == 0;
		if (binary && (uint64_t)count > (uint64_t)lim.max_triangles)
		{
			return asset_fail(error, SN_ERR_CAPACITY, SNM_ASSET_TOO_MANY_TRIANGLES, file, 0, "",
							  "the STL header says %u triangles, more than max_triangles (%d)", count,
							  lim.max_triangles);
		}
		if (!binary && !ascii)
		{
			if (size < 84)
			{
				return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_UNREADABLE, file, 0, "",
								  "neither ASCII (\"solid\") nor binary STL (at least 84 bytes), %zu bytes", size);
			}
			if ((uint64_t)count > (uint64_t)lim.max_triangles)
			{
				return asset_fail(error, SN_ERR_CAPACITY, SNM_ASSET_TOO_MANY_TRIANGLES, file, 0, "",
								  "the STL header says %u triangles, more than max_triangles (%d)", count,
								  lim.max_triangles);
			}
			return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_UNREADABLE, file, 0, "",
							  "a binary STL whose header says %u triangles (%llu bytes) has %zu bytes", count,
							  (unsigned long long)(84 + 50 * (uint64_t)count), size);
		}
		char why[96];
		if (ascii && !check_ascii_stl(bytes + lead, size - lead, why, sizeof(why)))
		{
			return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_UNREADABLE, file, 0, "", "ASCII STL: %s", why);
		}
	}
	if (format == FORMAT_DAE)
	{
		snm_asset_error kind = SNM_ASSET_NONE;
		char why[160];
		if (!model_scan_dae(data, size, &lim, &kind, why, sizeof(why)))
		{
			return asset_fail(error,
							  kind == SNM_ASSET_TOO_DEEP || kind == SNM_ASSET_TOO_LARGE ? SN_ERR_CAPACITY
								  : kind == SNM_ASSET_UNSUPPORTED                       ? SN_ERR_UNSUPPORTED
																						: SN_ERR_INVALID_ARGUMENT,
							  kind, file, 0, "", "DAE: %s", why);
		}
	}

	struct aiPropertyStore* props = aiCreatePropertyStore();
	if (props == NULL)
	{
		return asset_fail(error, SN_ERR_NO_MEMORY, SNM_ASSET_NONE, file, 0, "", "out of memory");
	}
	// Points and lines are dropped (a collision mesh is triangles); smooth normals across edges up to 80
	// degrees (a robot part's sharp edges stay sharp).
	aiSetImportPropertyInteger(props, AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
	aiSetImportPropertyFloat(props, AI_CONFIG_PP_GSN_MAX_SMOOTHING_ANGLE, 80.0f);
	// No aiProcess_JoinIdenticalVertices: it takes most of a detailed DAE's read (130 of 155 ms for the
	// Panda's 1.6 MB link0.dae); weld_vertices does the same by hashing, in linear time.
	unsigned int flags = aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_PreTransformVertices |
		aiProcess_GenSmoothNormals | aiProcess_FindDegenerates | aiProcess_ValidateDataStructure;
	if (format == FORMAT_STL)
	{
		// STL's per-facet normals are often zero or stale: made from the triangles instead.
		flags |= aiProcess_ForceGenNormals;
	}
	// An OBJ's mtllib lines become comments: the material library is another file, which our file system
	// would refuse anyway, and assimp 5.2 leaks its default material when such a file then fails
	// validation (about 2.4 kB a read: unbounded growth under repeated uploads).
	unsigned char* obj_copy = NULL;
	if (format == FORMAT_OBJ)
	{
		obj_copy = malloc(size);
		if (obj_copy == NULL)
		{
			aiReleasePropertyStore(props);
			return asset_fail(error, SN_ERR_NO_MEMORY, SNM_ASSET_NONE, file, 0, "", "out of memory");
		}
		memcpy(obj_copy, data, size);
		neutralise_mtllib(obj_copy, size);
		char why[96];
		if (!check_obj_indices(obj_copy, size, why, sizeof(why)))
		{
			free(obj_copy);
			aiReleasePropertyStore(props);
			return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_UNREADABLE, file, 0, "", "OBJ: %s", why);
		}
		data = obj_copy;
	}
	// assimp reads through our file system, which has this one file and nothing else (see memory_open).
	memory_fs fs = { data, size,
					 format == FORMAT_STL       ? "mesh.stl"
						 : format == FORMAT_OBJ ? "mesh.obj"
												: "mesh.dae",
					 0 };
	struct aiFileIO io = { memory_open, memory_close, (aiUserData)(void*)&fs };
	const struct aiScene* scene = aiImportFileExWithProperties(fs.name, flags, &io, props);
	aiReleasePropertyStore(props);
	free(obj_copy);
	data = bytes;
	if (scene == NULL)
	{
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_UNREADABLE, file, 0, "", "unreadable: %.200s",
						  aiGetErrorString());
	}
	// Count what is kept: triangle faces of triangle meshes.
	uint64_t vertices = 0, triangles = 0;
	int parts = 0;
	for (unsigned int m = 0; m < scene->mNumMeshes; ++m)
	{
		const struct aiMesh* am = scene->mMeshes[m];
		if (am == NULL || !(am->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) || am->mNumFaces == 0)
		{
			continue;
		}
		vertices += am->mNumVertices;
		triangles += am->mNumFaces;
		parts++;
	}
	if (triangles > (uint64_t)lim.max_triangles || vertices > 3 * (uint64_t)lim.max_triangles)
	{
		aiReleaseImport(scene);
		return asset_fail(error, SN_ERR_CAPACITY, SNM_ASSET_TOO_MANY_TRIANGLES, file, 0, "",
						  "%llu triangles (%llu vertices), more than max_triangles (%d)", (unsigned long long)triangles,
						  (unsigned long long)vertices, lim.max_triangles);
	}
	if (triangles == 0)
	{
		aiReleaseImport(scene);
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_EMPTY, file, 0, "", "the file has no triangles");
	}
	snm_mesh* mesh = calloc(1, sizeof(*mesh));
	if (mesh != NULL)
	{
		mesh->positions = malloc((size_t)vertices * 3 * sizeof(float));
		mesh->normals = malloc((size_t)vertices * 3 * sizeof(float));
		mesh->indices = malloc((size_t)triangles * 3 * sizeof(uint32_t));
		mesh->parts = calloc((size_t)parts, sizeof(snm_mesh_part));
	}
	if (mesh == NULL || mesh->positions == NULL || mesh->normals == NULL || mesh->indices == NULL ||
		mesh->parts == NULL)
	{
		snm_mesh_destroy(mesh);
		aiReleaseImport(scene);
		return asset_fail(error, SN_ERR_NO_MEMORY, SNM_ASSET_NONE, file, 0, "", "out of memory");
	}
	bool up_fix = format == FORMAT_DAE;
	uint32_t base = 0;
	bool finite = true, bad_index = false;
	for (unsigned int m = 0; m < scene->mNumMeshes; ++m)
	{
		const struct aiMesh* am = scene->mMeshes[m];
		if (am == NULL || !(am->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) || am->mNumFaces == 0)
		{
			continue;
		}
		snm_mesh_part* part = &mesh->parts[mesh->part_count++];
		part->first_triangle = mesh->triangle_count;
		part->rgba[0] = part->rgba[1] = part->rgba[2] = 0.7f;
		part->rgba[3] = 1.0f;
		if (am->mMaterialIndex < scene->mNumMaterials && scene->mMaterials != NULL)
		{
			struct aiColor4D c;
			if (aiGetMaterialColor(scene->mMaterials[am->mMaterialIndex], AI_MATKEY_COLOR_DIFFUSE, &c) ==
					aiReturn_SUCCESS &&
				isfinite(c.r) && isfinite(c.g) && isfinite(c.b) && isfinite(c.a))
			{
				part->has_color = true;
				part->rgba[0] = fminf(fmaxf(c.r, 0.0f), 1.0f);
				part->rgba[1] = fminf(fmaxf(c.g, 0.0f), 1.0f);
				part->rgba[2] = fminf(fmaxf(c.b, 0.0f), 1.0f);
				part->rgba[3] = fminf(fmaxf(c.a, 0.0f), 1.0f);
			}
		}
		for (unsigned int i = 0; i < am->mNumVertices; ++i)
		{
			struct aiVector3D p = am->mVertices[i];
			struct aiVector3D n = am->mNormals != NULL ? am->mNormals[i] : (struct aiVector3D){ 0.0f, 0.0f, 1.0f };
			finite = finite && isfinite(p.x) && isfinite(p.y) && isfinite(p.z);
			if (!(isfinite(n.x) && isfinite(n.y) && isfinite(n.z)))
			{
				n.x = 0.0f;
				n.y = 0.0f;
				n.z = up_fix ? -1.0f : 1.0f; // (0, 0, 1) after the turn below
			}
			float* pos = &mesh->positions[3 * (size_t)(base + i)];
			float* nor = &mesh->normals[3 * (size_t)(base + i)];
			if (up_fix)
			{
				pos[0] = p.x, pos[1] = -p.z, pos[2] = p.y;
				nor[0] = n.x, nor[1] = -n.z, nor[2] = n.y;
			}
			else
			{
				pos[0] = p.x, pos[1] = p.y, pos[2] = p.z;
				nor[0] = n.x, nor[1] = n.y, nor[2] = n.z;
			}
		}
		for (unsigned int f = 0; f < am->mNumFaces; ++f)
		{
			const struct aiFace* face = &am->mFaces[f];
			if (face->mNumIndices != 3)
			{
				continue;
			}
			uint32_t* tri = &mesh->indices[3 * (size_t)mesh->triangle_count];
			for (int k = 0; k < 3; ++k)
			{
				unsigned int index = face->mIndices[k];
				bad_index = bad_index || index >= am->mNumVertices;
				tri[k] = base + (index < am->mNumVertices ? index : 0);
			}
			mesh->triangle_count++;
		}
		part->triangle_count = mesh->triangle_count - part->first_triangle;
		base += am->mNumVertices;
	}
	mesh->vertex_count = (int)base;
	aiReleaseImport(scene);
	if (finite && !bad_index)
	{
		weld_vertices(mesh);
		repair_normals(mesh);
	}
	if (!finite || bad_index || mesh->triangle_count == 0)
	{
		snm_mesh_destroy(mesh);
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, !finite || bad_index ? SNM_ASSET_UNREADABLE : SNM_ASSET_EMPTY,
						  file, 0, "", "%s",
						  !finite         ? "a vertex coordinate is not finite"
							  : bad_index ? "a face index is out of range"
										  : "the file has no triangles");
	}
	mesh->hash = snm_fnv1a64(data, size);
	mesh->file_bytes = size;
	snprintf(mesh->uri, sizeof(mesh->uri), "%s", file);
	snprintf(mesh->source, sizeof(mesh->source), "%s", file);
	*out_mesh = mesh;
	return SN_ERR_OK;
}

// ---- Resolvers ----

static void append_looked(char* looked, size_t capacity, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void append_looked(char* looked, size_t capacity, const char* format, ...)
{
	if (looked == NULL || capacity == 0)
	{
		return;
	}
	looked[capacity - 1] = '\0';
	size_t used = strlen(looked);
	if (used > 0 && used + 2 < capacity)
	{
		memcpy(looked + used, "; ", 3);
		used += 2;
	}
	va_list args;
	va_start(args, format);
	vsnprintf(looked + used, capacity - used, format, args);
	va_end(args);
}

sn_error snm_resolve_memory(void* user, const char* uri, size_t max_bytes, snm_asset* asset, char* looked,
							size_t looked_capacity)
{
	const snm_memory_files* table = user;
	int count = table != NULL && table->files != NULL ? table->count : 0;
	for (int i = 0; i < count; ++i)
	{
		const snm_memory_file* f = &table->files[i];
		if (f->name != NULL && strcmp(f->name, uri) == 0 && (f->data != NULL || f->size == 0))
		{
			if (f->size > max_bytes)
			{
				return SN_ERR_CAPACITY;
			}
			asset->data = f->data;
			asset->size = f->size;
			snprintf(asset->source, sizeof(asset->source), "(supplied) %.480s", uri);
			return SN_ERR_OK;
		}
	}
	append_looked(looked, looked_capacity, "the %d supplied files", count);
	return SN_ERR_INVALID_ARGUMENT;
}

static void release_malloc(void* context, const unsigned char* data)
{
	(void)context;
	free((void*)data);
}

// Read a regular file of at most max_bytes. SN_ERR_OK, SN_ERR_INVALID_ARGUMENT (absent, not a regular
// file or unreadable) or SN_ERR_CAPACITY.
static sn_error read_file(const char* path, size_t max_bytes, snm_asset* asset)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if ((unsigned long long)st.st_size > (unsigned long long)max_bytes)
	{
		return SN_ERR_CAPACITY;
	}
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	// The size may change between stat and read: read at most max_bytes + 1.
	size_t capacity = (size_t)st.st_size + 1;
	unsigned char* data = malloc(capacity);
	size_t size = data != NULL ? fread(data, 1, capacity, f) : 0;
	bool failed = data == NULL || ferror(f);
	fclose(f);
	if (failed || size > max_bytes)
	{
		free(data);
		return failed ? SN_ERR_INVALID_ARGUMENT : SN_ERR_CAPACITY;
	}
	asset->data = data;
	asset->size = size;
	asset->release = release_malloc;
	asset->release_context = NULL;
	snprintf(asset->source, sizeof(asset->source), "%s", path);
	return SN_ERR_OK;
}

static bool is_dir(const char* path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// Whether folder/package.xml names the package `name` (<name>NAME</name>, white space trimmed).
static bool package_xml_names(const char* folder, const char* name)
{
	char path[2 * SNM_PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/package.xml", folder) >= (int)sizeof(path))
	{
		return false;
	}
	snm_asset a;
	memset(&a, 0, sizeof(a));
	if (read_file(path, 1 << 16, &a) != SN_ERR_OK)
	{
		return false;
	}
	bool match = false;
	char* text = malloc(a.size + 1);
	if (text != NULL)
	{
		memcpy(text, a.data, a.size);
		text[a.size] = '\0';
		char* open = strstr(text, "<name>");
		char* close = open != NULL ? strstr(open, "</name>") : NULL;
		if (close != NULL)
		{
			char* s = open + 6;
			while (s < close && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			{
				++s;
			}
			char* e = close;
			while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
			{
				--e;
			}
			match = (size_t)(e - s) == strlen(name) && strncmp(s, name, (size_t)(e - s)) == 0;
		}
		free(text);
	}
	a.release(a.release_context, a.data);
	return match;
}

// Look for package NAME's file REST under each folder of a colon-separated path list.
static sn_error search_packages(const char* list, const char* what, const char* name, const char* rest,
								size_t max_bytes, snm_asset* asset, char* looked, size_t looked_capacity)
{
	if (list == NULL || list[0] == '\0')
	{
		append_looked(looked, looked_capacity, "%s (empty)", what);
		return SN_ERR_INVALID_ARGUMENT;
	}
	const char* s = list;
	while (*s != '\0')
	{
		const char* colon = strchr(s, ':');
		size_t n = colon != NULL ? (size_t)(colon - s) : strlen(s);
		if (n > 0 && n < SNM_PATH_MAX)
		{
			char entry[SNM_PATH_MAX];
			memcpy(entry, s, n);
			entry[n] = '\0';
			char folder[2 * SNM_PATH_MAX], path[3 * SNM_PATH_MAX];
			snprintf(folder, sizeof(folder), "%s/%s", entry, name);
			const char* root = NULL;
			if (is_dir(folder))
			{
				root = folder;
			}
			else if (package_xml_names(entry, name))
			{
				root = entry;
			}
			if (root != NULL)
			{
				snprintf(path, sizeof(path), "%s/%s", root, rest);
				sn_error err = read_file(path, max_bytes, asset);
				if (err != SN_ERR_INVALID_ARGUMENT)
				{
					return err;
				}
				append_looked(looked, looked_capacity, "%s (%s)", path, what);
			}
			else
			{
				append_looked(looked, looked_capacity, "%s/%s (%s: no such package folder)", entry, name, what);
			}
		}
		s += n;
		if (*s == ':')
		{
			++s;
		}
	}
	return SN_ERR_INVALID_ARGUMENT;
}

static bool has_dot_dot(const char* path)
{
	const char* s = path;
	while ((s = strstr(s, "..")) != NULL)
	{
		bool start = s == path || s[-1] == '/';
		bool end = s[2] == '\0' || s[2] == '/';
		if (start && end)
		{
			return true;
		}
		s += 2;
	}
	return false;
}

// The filesystem resolver (see model.h). SN_ERR_UNSUPPORTED for a scheme it does not know, and
// SN_ERR_INVALID_ARGUMENT with asset->source[0] == '\1' for a refused path.
static sn_error resolve_file(const snm_mesh_options* o, const char* uri, size_t max_bytes, snm_asset* asset,
							 char* looked, size_t looked_capacity, snm_asset_error* refused)
{
	*refused = SNM_ASSET_NONE;
	if (strncmp(uri, "package://", 10) == 0)
	{
		const char* name_start = uri + 10;
		const char* slash = strchr(name_start, '/');
		if (slash == NULL || slash == name_start || slash[1] == '\0' || (size_t)(slash - name_start) >= SNM_NAME_MAX)
		{
			append_looked(looked, looked_capacity, "nowhere: a package URI is package://NAME/PATH");
			return SN_ERR_INVALID_ARGUMENT;
		}
		size_t name_length = (size_t)(slash - name_start);
		if (has_dot_dot(slash + 1) || (name_length <= 2 && strncmp(name_start, "..", name_length) == 0))
		{
			*refused = SNM_ASSET_REFUSED;
			return SN_ERR_INVALID_ARGUMENT;
		}
		char name[SNM_NAME_MAX];
		memcpy(name, name_start, (size_t)(slash - name_start));
		name[slash - name_start] = '\0';
		sn_error err = search_packages(o->package_path, "package_path", name, slash + 1, max_bytes, asset, looked,
									   looked_capacity);
		if (err == SN_ERR_INVALID_ARGUMENT && o->use_env_path)
		{
			err = search_packages(getenv("SINEW_MODEL_PATH"), "SINEW_MODEL_PATH", name, slash + 1, max_bytes, asset,
								  looked, looked_capacity);
		}
		return err;
	}
	const char* path = uri;
	bool file_scheme = strncmp(uri, "file://", 7) == 0;
	if (file_scheme)
	{
		path = uri + 7;
	}
	else if (strstr(uri, "://") != NULL)
	{
		return SN_ERR_UNSUPPORTED;
	}
	if (o->confine_paths && (file_scheme || path[0] == '/' || has_dot_dot(path)))
	{
		*refused = SNM_ASSET_REFUSED;
		return SN_ERR_INVALID_ARGUMENT;
	}
	char full[3 * SNM_PATH_MAX];
	if (path[0] == '/')
	{
		snprintf(full, sizeof(full), "%s", path);
	}
	else
	{
		snprintf(full, sizeof(full), "%s/%s", o->base_dir != NULL && o->base_dir[0] != '\0' ? o->base_dir : ".", path);
	}
	sn_error err = read_file(full, max_bytes, asset);
	if (err == SN_ERR_INVALID_ARGUMENT)
	{
		append_looked(looked, looked_capacity, "%s", full);
	}
	return err;
}

sn_error snm_resolve_file(const snm_mesh_options* options, const char* uri, size_t max_bytes, snm_asset* asset,
						  char* looked, size_t looked_capacity)
{
	if (options == NULL || uri == NULL || asset == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	snm_asset_error refused = SNM_ASSET_NONE;
	memset(asset, 0, sizeof(*asset));
	sn_error err = resolve_file(options, uri, max_bytes, asset, looked, looked_capacity, &refused);
	if (refused != SNM_ASSET_NONE)
	{
		append_looked(looked, looked_capacity,
					  "nowhere: refused (\"..\" in a package URI, or an absolute path, "
					  "file:// or \"..\" where paths are confined)");
		return SN_ERR_INVALID_ARGUMENT;
	}
	return err;
}

// ---- The model step ----

void model_free_meshes(snm_model* model)
{
	for (int i = 0; i < model->mesh_count; ++i)
	{
		snm_mesh_destroy(model->meshes[i]);
	}
	free(model->meshes);
	model->meshes = NULL;
	model->mesh_count = 0;
	for (int i = 0; i < model->visual_count; ++i)
	{
		model->visuals[i].mesh_index = -1;
	}
	for (int i = 0; i < model->collision_count; ++i)
	{
		model->collisions[i].mesh_index = -1;
	}
}

typedef struct mesh_use
{
	const char* uri;
	int line;
	int link;
	bool collision;
	int index; // visual or collision index
} mesh_use;

static void describe_use(const snm_model* m, const mesh_use* u, char* out, size_t capacity)
{
	snprintf(out, capacity, "<link name=\"%.40s\"> <%s>", m->links[u->link].name,
			 u->collision ? "collision" : "visual");
}

sn_error snm_model_load_meshes(snm_model* model, const snm_mesh_options* options, snm_error* error)
{
	model_error_clear(error);
	if (model == NULL)
	{
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_NONE, "<urdf>", 0, "", "model is NULL");
	}
	snm_mesh_options o = options != NULL ? *options : snm_default_mesh_options();
	if (!check_mesh_limits(&o.limits))
	{
		return asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_NONE, model->file, 0, "",
						  "mesh limits out of range (max_file_bytes 1..%d, max_triangles 1..%d, max_meshes 1..65536, "
						  "max_xml_depth 2..%d)",
						  INT_MAX, SN_SHAPE_MAX_MESH_TRIANGLES, SNM_MESH_MAX_XML_DEPTH);
	}
	// Every use of a mesh, and the distinct URIs among them (a use's mesh index is its URI's).
	int use_count = 0;
	mesh_use* uses = malloc((size_t)(model->visual_count + model->collision_count + 1) * sizeof(mesh_use));
	int* use_mesh = malloc((size_t)(model->visual_count + model->collision_count + 1) * sizeof(int));
	snm_mesh** meshes = calloc((size_t)o.limits.max_meshes, sizeof(snm_mesh*));
	const char** mesh_uri = calloc((size_t)o.limits.max_meshes, sizeof(char*));
	if (uses == NULL || use_mesh == NULL || meshes == NULL || mesh_uri == NULL)
	{
		free(uses);
		free(use_mesh);
		free(meshes);
		free(mesh_uri);
		return asset_fail(error, SN_ERR_NO_MEMORY, SNM_ASSET_NONE, model->file, 0, "", "out of memory");
	}
	for (int i = 0; o.load_visuals && i < model->visual_count; ++i)
	{
		const snm_visual* v = &model->visuals[i];
		if (v->type == SNM_GEOMETRY_MESH)
		{
			uses[use_count++] = (mesh_use){ v->mesh, v->line, v->link, false, i };
		}
	}
	for (int i = 0; o.load_collisions && i < model->collision_count; ++i)
	{
		const snm_collision* c = &model->collisions[i];
		if (c->type == SNM_GEOMETRY_MESH)
		{
			uses[use_count++] = (mesh_use){ c->mesh, c->line, c->link, true, i };
		}
	}
	int mesh_count = 0;
	size_t total_bytes = 0;
	sn_error err = SN_ERR_OK;
	// Warnings are added only when the whole step succeeds.
	snm_warning* warnings = NULL;
	int warning_count = 0, warnings_dropped = 0;
	for (int u = 0; err == SN_ERR_OK && u < use_count; ++u)
	{
		const mesh_use* use = &uses[u];
		use_mesh[u] = -1;
		int found = -2; // -2: not yet asked; -1: asked, missing
		for (int k = 0; k < u; ++k)
		{
			if (strcmp(uses[k].uri, use->uri) == 0)
			{
				found = use_mesh[k];
				break;
			}
		}
		if (found != -2)
		{
			use_mesh[u] = found;
			continue;
		}
		char element[96];
		describe_use(model, use, element, sizeof(element));
		if (mesh_count >= o.limits.max_meshes)
		{
			err =
				asset_fail(error, SN_ERR_CAPACITY, SNM_ASSET_TOO_MANY_MESHES, model->file, use->line, element,
						   "\"%.200s\": more than max_meshes (%d) distinct mesh files", use->uri, o.limits.max_meshes);
			break;
		}
		size_t room = o.limits.max_model_bytes - total_bytes;
		size_t max_bytes = o.limits.max_file_bytes < room ? o.limits.max_file_bytes : room;
		snm_asset asset;
		memset(&asset, 0, sizeof(asset));
		char looked[640] = "";
		sn_error got = SN_ERR_INVALID_ARGUMENT;
		snm_asset_error refused = SNM_ASSET_NONE;
		if (o.resolve != NULL)
		{
			got = o.resolve(o.resolve_user, use->uri, max_bytes, &asset, looked, sizeof(looked));
			looked[sizeof(looked) - 1] = '\0';
		}
		if (got == SN_ERR_INVALID_ARGUMENT && o.read_files)
		{
			memset(&asset, 0, sizeof(asset));
			got = resolve_file(&o, use->uri, max_bytes, &asset, looked, sizeof(looked), &refused);
		}
		if (got == SN_ERR_OK && asset.size > max_bytes)
		{
			if (asset.release != NULL)
			{
				asset.release(asset.release_context, asset.data);
			}
			got = SN_ERR_CAPACITY;
		}
		if (got == SN_ERR_CAPACITY)
		{
			bool model_full = room < o.limits.max_file_bytes;
			err = asset_fail(error, SN_ERR_CAPACITY, model_full ? SNM_ASSET_MODEL_TOO_LARGE : SNM_ASSET_TOO_LARGE,
							 model->file, use->line, element, "\"%.200s\": larger than %s (%zu bytes)", use->uri,
							 model_full ? "what is left of max_model_bytes" : "max_file_bytes", max_bytes);
			break;
		}
		if (refused != SNM_ASSET_NONE)
		{
			err = asset_fail(
				error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_REFUSED, model->file, use->line, element,
				"\"%.200s\": refused: \"..\" in a package URI, or (confine_paths) an absolute path, file:// or \"..\"",
				use->uri);
			break;
		}
		if (got == SN_ERR_UNSUPPORTED)
		{
			err = asset_fail(error, SN_ERR_UNSUPPORTED, SNM_ASSET_UNSUPPORTED, model->file, use->line, element,
							 "\"%.200s\": an unknown URI scheme (package://, file:// or a path)", use->uri);
			break;
		}
		if (got == SN_ERR_INVALID_ARGUMENT)
		{
			if (!o.read_files && o.resolve == NULL)
			{
				append_looked(looked, sizeof(looked), "nowhere: no resolver and read_files off");
			}
			if (o.missing_fallback)
			{
				model_warn(&warnings, &warning_count, &warnings_dropped, model->file, use->line, element,
						   "mesh \"%.120s\" not found (looked in: %.100s); left out (missing_fallback)", use->uri,
						   looked);
				use_mesh[u] = -1;
				continue;
			}
			err = asset_fail(error, SN_ERR_INVALID_ARGUMENT, SNM_ASSET_NOT_FOUND, model->file, use->line, element,
							 "mesh \"%.200s\" not found", use->uri);
			if (error != NULL)
			{
				char place[32] = "";
				if (use->line > 0)
				{
					snprintf(place, sizeof(place), "%d:", use->line);
				}
				// A long list of places is cut at the end of the text.
				int written =
					snprintf(error->text, sizeof(error->text), "%.120s:%s %s: mesh \"%.200s\" not found; looked in: %s",
							 model->file, place, element, use->uri, looked);
				(void)written;
			}
			break;
		}
		if (got != SN_ERR_OK)
		{
			err = asset_fail(error, got, SNM_ASSET_NONE, model->file, use->line, element,
							 "\"%.200s\": the resolver failed: %s", use->uri, sn_error_name(got));
			break;
		}
		snm_mesh* mesh = NULL;
		snm_error read_error;
		sn_error rerr = snm_read_mesh(asset.data, asset.size, use->uri, &o.limits, &mesh, &read_error);
		if (rerr == SN_ERR_OK)
		{
			total_bytes += asset.size;
			snprintf(mesh->source, sizeof(mesh->source), "%s", asset.source[0] != '\0' ? asset.source : use->uri);
		}
		if (asset.release != NULL)
		{
			asset.release(asset.release_context, asset.data);
		}
		if (rerr != SN_ERR_OK)
		{
			err = asset_fail(error, rerr, read_error.asset, model->file, use->line, element, "\"%.120s\": %.120s",
							 use->uri, read_error.message);
			break;
		}
		meshes[mesh_count] = mesh;
		mesh_uri[mesh_count] = use->uri;
		use_mesh[u] = mesh_count++;
	}
	if (err != SN_ERR_OK)
	{
		for (int i = 0; i < mesh_count; ++i)
		{
			snm_mesh_destroy(meshes[i]);
		}
		free(meshes);
		free(mesh_uri);
		free(uses);
		free(use_mesh);
		free(warnings);
		return err;
	}
	model_free_meshes(model);
	model->meshes = meshes;
	model->mesh_count = mesh_count;
	for (int u = 0; u < use_count; ++u)
	{
		if (uses[u].collision)
		{
			model->collisions[uses[u].index].mesh_index = use_mesh[u];
		}
		else
		{
			model->visuals[uses[u].index].mesh_index = use_mesh[u];
		}
	}
	for (int w = 0; w < warning_count; ++w)
	{
		model_warn(&model->warnings, &model->warning_count, &model->warnings_dropped, model->file, warnings[w].line,
				   warnings[w].element, "%s", warnings[w].message);
	}
	model->warnings_dropped += warnings_dropped;
	free(warnings);
	free(mesh_uri);
	free(uses);
	free(use_mesh);
	return SN_ERR_OK;
}

sn_error snm_import_urdf_file(const char* path, const snm_limits* limits, const snm_mesh_options* options,
							  snm_model** out_model, snm_error* error)
{
	sn_error err = snm_load_urdf_file(path, limits, out_model, error);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	snm_mesh_options o = options != NULL ? *options : snm_default_mesh_options();
	char dir[SNM_PATH_MAX];
	if (o.base_dir == NULL)
	{
		const char* slash = strrchr(path, '/');
		if (slash == NULL)
		{
			snprintf(dir, sizeof(dir), ".");
		}
		else if ((size_t)(slash - path) < sizeof(dir))
		{
			memcpy(dir, path, (size_t)(slash - path));
			dir[slash - path] = '\0';
			if (dir[0] == '\0')
			{
				snprintf(dir, sizeof(dir), "/");
			}
		}
		else
		{
			snm_model_destroy(*out_model);
			*out_model = NULL;
			return asset_fail(error, SN_ERR_CAPACITY, SNM_ASSET_NONE, path, 0, "", "the path is too long");
		}
		o.base_dir = dir;
	}
	err = snm_model_load_meshes(*out_model, &o, error);
	if (err != SN_ERR_OK)
	{
		snm_model_destroy(*out_model);
		*out_model = NULL;
	}
	return err;
}

int snm_model_get_visual_meshes(const snm_model* model, snm_visual_mesh* out, int capacity)
{
	if (model == NULL)
	{
		return 0;
	}
	int count = 0;
	for (int i = 0; i < model->visual_count; ++i)
	{
		const snm_visual* v = &model->visuals[i];
		if (v->type != SNM_GEOMETRY_MESH || v->mesh_index < 0 || v->mesh_index >= model->mesh_count)
		{
			continue;
		}
		if (out != NULL && count < capacity)
		{
			snm_visual_mesh* o = &out[count];
			o->visual = i;
			o->link = v->link;
			o->link_name = model->links[v->link].name;
			o->origin = v->origin;
			o->scale = v->scale;
			o->has_color = v->has_color;
			memcpy(o->rgba, v->rgba, sizeof(o->rgba));
			o->mesh = model->meshes[v->mesh_index];
		}
		count++;
	}
	return count;
}
