// Private plumbing of the model library shared by urdf.c (parsing), model.c (validation and lookup) and
// build.c (into a world).
#ifndef SINEW_MODEL_INTERNAL_H
#define SINEW_MODEL_INTERNAL_H

#include "sinew/model.h"

#include <stdarg.h>

// Fill *error (if not NULL): code, place, element and a printf-style message, plus the formatted text
// "file:line:column: element: message". Returns code so callers can `return model_fail(...)`.
sn_error model_fail(snm_error* error, sn_error code, const char* file, int line, int column, const char* element,
					const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;
sn_error model_vfail(snm_error* error, sn_error code, const char* file, int line, int column, const char* element,
					 const char* format, va_list args)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 0)))
#endif
	;

// Check a Collada file before assimp reads it (dae_scan.c): false with *kind and a message when it is
// refused.
bool model_scan_dae(const void* data, size_t size, const snm_mesh_limits* limits, snm_asset_error* kind, char* message,
					size_t message_capacity);

// Clear *error to "no error".
void model_error_clear(snm_error* error);

// Append a warning to a list (items, count, dropped: a model's or a build result's), printf-style. Past
// SNM_MAX_WARNINGS, or out of memory, it is only counted in *dropped.
void model_warn(snm_warning** items, int* count, int* dropped, const char* file, int line, const char* element,
				const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;

// Eigenvalues of a symmetric 3x3 matrix in ascending order, and (if vectors is not NULL) the matching unit
// eigenvectors as its columns (Jacobi rotations: exact to rounding, a few sweeps for 3x3).
void model_sym_eigen(sn_mat33 a, double values[3], sn_mat33* vectors);

// After the text is read: resolve names, check the tree (one root, no cycle, one parent per link),
// mimic references, materials of visuals, and compute link_order.
sn_error model_finish(snm_model* model, snm_error* error);

// Copy a string into a fixed buffer; false if it does not fit (nothing is truncated silently).
bool model_copy_name(char* destination, size_t capacity, const char* source);

// Free the meshes snm_model_load_meshes read (mesh.c) and reset every mesh_index to -1.
void model_free_meshes(snm_model* model);

#endif
