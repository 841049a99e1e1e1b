export * from './template-syntax';
export * from './render-template';
export * from './template-content';
export * from './template-fields';
export * from './sample-variables';
