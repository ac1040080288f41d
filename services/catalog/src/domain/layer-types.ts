/** Where in the delivery chain a layer's checks look. */
export interface LayerType {
  id: number;
  name: string;
  description: string;
}

export const LAYER_TYPES: LayerType[] = [
  {
    id: 1,
    name: 'Source code',
    description: 'Checks of the source repository: SAST, secrets, dependencies, infrastructure as code',
  },
  { id: 2, name: 'Artifact', description: 'Checks of built artifacts: container images, packages, SBOMs' },
  { id: 3, name: 'Running application', description: 'Checks of a deployed application: DAST and other live scans' },
];

export const layerType = (id: number) => LAYER_TYPES.find((t) => t.id === id);
