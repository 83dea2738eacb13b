// Who is in a world and as what: its owner (if any) and whether the world outlives the owner's session,
// and its members in join order (the owner, the controllers and observers that joined). The command gate
// checks roles here (command.c); join order is the order lockstep inputs are applied in (lockstep.c).
#ifndef SINEW_SERVER_MEMBERS_H
#define SINEW_SERVER_MEMBERS_H

#include "sinew.pb.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct world_member
{
	uint64_t session_id;
	sinew_v1_Role role; // OBSERVER, CONTROLLER or OWNER (the owner is always a member)
	bool controlling;   // joined as a controller: takes part in lockstep
	// Lockstep: this member's input for the pending tick (lockstep.c).
	bool submitted;
	uint64_t request_id;
	sinew_v1_LockstepInput* input; // owned; set while submitted
} world_member;

// A client address whose controller was demoted in a lockstep world (lockstep.c): it may not control the
// world again until `until_ns`, and each demotion doubles the wait.
typedef struct demoted_client
{
	char address[64]; // session.h: address
	uint64_t until_ns;
	int demotions;
} demoted_client;

enum
{
	MEMBERS_DEMOTED_KEPT = 32 // the addresses remembered per world (the oldest bar is forgotten first)
};

typedef struct world_members
{
	uint64_t owner;   // session id, 0 if none
	bool keep;        // the world survives its owner's disconnect
	char keeper[64];  // kept worlds: the address of the client they count against (session.h: address)
	uint64_t idle_ns; // kept worlds: since when nobody owns, joined or watches it (0: somebody does)
	world_member* list;
	int count;
	int capacity;
	demoted_client demoted[MEMBERS_DEMOTED_KEPT];
	// SetControllerKey: controlling or adopting the world needs the key whose SHA-256 this is.
	bool has_key;
	uint8_t key_hash[32];
} world_members;

// Role of a session in the world: OWNER, the member's role, or OBSERVER for everyone else.
sinew_v1_Role members_role(const world_members* members, uint64_t session_id);
// The member of a session, or NULL.
world_member* members_find(world_members* members, uint64_t session_id);
// Add (at the end of join order) or update a member. Returns false if memory ran out.
bool members_set(world_members* members, uint64_t session_id, sinew_v1_Role role, bool controlling);
// Remove a member, keeping the others in join order (its pending lockstep input is dropped: answer it
// first, see world_host_remove_member).
void members_remove(world_members* members, uint64_t session_id);
void members_free(world_members* members);
// A controller from `address` was demoted at now_ns: it is barred from controlling for `base_ns`, twice
// that after a second demotion, and so on (at most an hour). Returns the bar's end.
uint64_t members_demote(world_members* members, const char* address, uint64_t now_ns, uint64_t base_ns);
// The end of the bar on `address` (0 if there is none at now_ns).
uint64_t members_barred_until(const world_members* members, const char* address, uint64_t now_ns);

#endif
