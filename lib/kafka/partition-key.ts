/** The map key of one partition in every per-partition result: `${topic}/${partition}`. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}/${partition}`;
}
