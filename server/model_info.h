// What the server tells about a world's robots: the UrdfModel of an articulation built from a URDF (the
// LoadUrdf reply, also kept encoded in the world host for DescribeWorld), and the DescribeWorld reply
// (each articulation's links from the core, with its UrdfModel when it has one, and the world's shapes).
#ifndef SINEW_SERVER_MODEL_INFO_H
#define SINEW_SERVER_MODEL_INFO_H

#include "model_registry.h"
#include "sinew.pb.h"

#include "sinew/model.h"
#include "sinew/sinew.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct world_host;

// A URDF and where it went in a world (snm_build's result); the callbacks of a filled UrdfModel read it.
typedef struct model_info
{
	const snm_model* model;
	const snm_build_result* built;
	// Per model->meshes entry: its mesh in the mesh format, kept in the asset store (NULL: none, e.g. a
	// mesh only collisions use). NULL: no meshes.
	asset_blob* const* mesh_blobs;
} model_info;

// The mesh of a model's mesh file in the mesh format, hashed (NULL if memory ran out). Any thread.
asset_blob* model_info_mesh_blob(const snm_mesh* mesh);

// For a model the server loads itself (the demo robot from --demo-model): read its mesh files from its
// folder (relative paths) and the model path (package://); a file not found is a warning (the robot
// still comes, without that visual or shape).
sn_error model_info_load_own_meshes(snm_model* model, const char* urdf_path, const char* model_path, snm_error* error);
// The meshes of a model's visuals kept in the asset store: per model->meshes entry, a reference to the
// stored blob or NULL (release with model_info_release_meshes). NULL if there are none or memory ran out
// (the visuals are then described without their meshes).
asset_blob** model_info_store_meshes(asset_store* store, const snm_model* model);
void model_info_release_meshes(asset_blob** blobs, int count);

// Fill a UrdfModel for an articulation of `dof_count` dofs built from info (callbacks point at info, which
// must outlive the encoding).
void model_info_fill(sinew_v1_UrdfModel* out, const model_info* info, sn_articulation_id articulation, int dof_count);

// Encode that UrdfModel and keep the bytes in a world's registry for DescribeWorld (replacing any kept for
// the same articulation id), with references to its meshes. Returns false if memory ran out (nothing is
// kept then).
bool model_info_keep(model_registry* models, const model_info* info, sn_articulation_id articulation, int dof_count);

// Fill a WorldDescription of the host's world (idle), of one articulation (articulation not null) or all.
// Allocates what its callbacks read: free it with model_info_free_description after encoding.
bool model_info_describe(struct world_host* host, sn_articulation_id articulation, sinew_v1_WorldDescription* out,
						 void** scratch);
void model_info_free_description(void* scratch);
// What encoding that description costs, in objects: its shapes and its articulations' links.
int model_info_description_objects(const void* scratch);

#endif
