// What the world is made of, for drawing and naming: filled in once the server can describe a world.
export async function describeWorld() {
	return null;
}
