console.log('worker placeholder')
