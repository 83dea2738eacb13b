// Sinew core: value ids with generations.
//
// Objects inside a world are named by value ids, never pointers: {index + 1, generation}. Zero is the
// null id. When an object is destroyed its slot's generation changes, so a stale id held by a client is
// rejected with SN_ERR_INVALID_ID instead of touching a recycled slot. Ids pack into a uint64 for the
// wire: high 32 bits index + 1, low 32 bits generation.
#ifndef SINEW_ID_H
#define SINEW_ID_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SN_DECLARE_ID_(type_name)                                                                                      \
	typedef struct type_name                                                                                           \
	{                                                                                                                  \
		int32_t index1;                                                                                                \
		uint32_t generation;                                                                                           \
	} type_name;                                                                                                       \
	static inline bool type_name##_is_null(type_name id)                                                               \
	{                                                                                                                  \
		return id.index1 == 0;                                                                                         \
	}                                                                                                                  \
	static inline uint64_t type_name##_store(type_name id)                                                             \
	{                                                                                                                  \
		return ((uint64_t)(uint32_t)id.index1 << 32) | (uint64_t)id.generation;                                        \
	}                                                                                                                  \
	static inline type_name type_name##_load(uint64_t packed)                                                          \
	{                                                                                                                  \
		type_name id = { (int32_t)(uint32_t)(packed >> 32), (uint32_t)(packed & 0xffffffffu) };                        \
		if (id.index1 < 0)                                                                                             \
		{                                                                                                              \
			id.index1 = 0;                                                                                             \
			id.generation = 0;                                                                                         \
		}                                                                                                              \
		return id;                                                                                                     \
	}                                                                                                                  \
	static inline bool type_name##_equals(type_name a, type_name b)                                                    \
	{                                                                                                                  \
		return a.index1 == b.index1 && a.generation == b.generation;                                                   \
	}

// A rigid body in maximal coordinates.
SN_DECLARE_ID_(sn_body_id)
// A joint between two bodies (or a body and the world).
SN_DECLARE_ID_(sn_joint_id)
// A reduced-coordinate articulation.
SN_DECLARE_ID_(sn_articulation_id)
// A mimic joint coupling dofs of one articulation.
SN_DECLARE_ID_(sn_mimic_id)
// A collision shape on a body, an articulation link's body or the world (shape.h).
SN_DECLARE_ID_(sn_shape_id)

#undef SN_DECLARE_ID_

#ifdef __cplusplus
}
#endif

#endif
